"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { formatUsd } from "@/lib/money";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { formatUsdText } from "@/lib/format";

export const savePayoutSettingsAction = defineAction(
  {
    name: "savePayoutSettings",
    role: "admin",
    input: z.object({
      minPayoutUsd: z
        .string()
        .trim()
        .regex(/^\d{1,9}(\.\d{1,2})?$/, {
          message: "must be an amount in USD with at most two decimals, such as 25.00 (0 for no minimum)",
        }),
      twoPersonRule: z.enum(["on", "off"], { message: "must be on or off" }),
      /** When the rules the form showed were saved ("" for the defaults). */
      drawnAt: z.string().max(40, { message: "must be when the rules were saved" }),
    }),
  },
  async (input, { user }) => {
    const settings = await savePayoutSettings(
      getDb(),
      { twoPersonRule: input.twoPersonRule === "on", minPayoutUsd: input.minPayoutUsd, drawnAt: input.drawnAt },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/settings/payouts");
    revalidatePath("/payouts", "layout");
    return {
      ok: true,
      message:
        `Saved: minimum payout ${formatUsdText(formatUsd(settings.minPayoutUsd))}; ` +
        `two-person rule ${settings.twoPersonRule ? "on" : "off"}. Batches prepared from now on use the new minimum.`,
    };
  },
);
