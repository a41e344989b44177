"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { usdInputSchema } from "@/lib/money";
import { saveSupportRefundLimit } from "@/lib/refunds/settings";
import { formatUsdText } from "@/lib/format";

export const saveSupportRefundLimitAction = defineAction(
  {
    name: "saveSupportRefundLimit",
    role: "admin",
    input: z.object({
      amountUsd: usdInputSchema,
      /** When the limit the form showed was saved ("" for the default). */
      drawnAt: z.string().max(40, { message: "must be when the limit was saved" }).optional(),
    }),
  },
  async ({ amountUsd, drawnAt }, { user }) => {
    const limit = await saveSupportRefundLimit(
      getDb(),
      amountUsd,
      { actor: { id: user.id, email: user.email }, via: "web" },
      drawnAt,
    );
    revalidatePath("/settings/refunds");
    return {
      ok: true,
      message:
        `Support may now refund up to ${formatUsdText(limit.amountUsd)} per period, in total; ` +
        "beyond that, refunds need finance.",
    };
  },
);
