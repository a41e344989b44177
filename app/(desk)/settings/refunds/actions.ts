"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { usdInputSchema } from "@/lib/money";
import { saveSupportRefundLimit } from "@/lib/refunds/settings";
import { formatUsdText } from "@/lib/format";

export const saveSupportRefundLimitAction = defineAction(
  { name: "saveSupportRefundLimit", role: "admin", input: z.object({ amountUsd: usdInputSchema }) },
  async ({ amountUsd }, { user }) => {
    const limit = await saveSupportRefundLimit(getDb(), amountUsd, { actor: user, via: "web" });
    revalidatePath("/settings/refunds");
    return {
      ok: true,
      message:
        `Support may now refund up to ${formatUsdText(limit.amountUsd)} per period, in total; ` +
        "beyond that, refunds need finance.",
    };
  },
);
