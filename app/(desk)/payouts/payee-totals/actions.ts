"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { setPayeeThreshold } from "@/lib/accounting/payee-totals";
import { calendarYearSchema, thresholdAmountSchema } from "@/lib/accounting/schemas";
import { formatUsdText } from "@/lib/format";
import { formatUsd } from "@/lib/money";

export const setPayeeThresholdAction = defineAction(
  {
    name: "setPayeeThreshold",
    role: "admin",
    input: z.object({ year: calendarYearSchema, amountUsd: thresholdAmountSchema }),
  },
  async (input, { user }) => {
    const saved = await setPayeeThreshold(
      getDb(),
      { year: input.year, amountUsd: input.amountUsd },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/payouts/payee-totals");
    return {
      ok: true,
      message: `The ${saved.year} reporting threshold is ${formatUsdText(formatUsd(saved.amountUsd))}.`,
    };
  },
);
