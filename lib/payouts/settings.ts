import "server-only";
import type { Actor, Via } from "@/core/actor";
import { z } from "zod";
import type { Db, DbOrTrx } from "@/db";
import { readAppSetting, writeAppSetting } from "@/db/queries/app-settings";
import { lockForTransaction } from "@/db/queries/locks";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { decimalStringSchema, formatUsd } from "@/lib/money";

/** The app_setting row of the payout rules: the two-person rule and the minimum payout. */
export const PAYOUT_SETTINGS_KEY = "payouts.settings";
export const DEFAULT_MIN_PAYOUT_USD = "10.00";

export type PayoutSettings = {
  /** The user who approves a batch must not be the one who prepared it. */
  twoPersonRule: boolean;
  /** A payable under this amount rolls to the next statement. */
  minPayoutUsd: string;
  updatedAt: Date | null;
  updatedBy: string | null;
  isDefault: boolean;
};

const storedSchema = z.object({ two_person_rule: z.boolean(), min_payout_usd: decimalStringSchema });

export async function readPayoutSettings(db: DbOrTrx): Promise<PayoutSettings> {
  const row = await readAppSetting(db, PAYOUT_SETTINGS_KEY);
  const parsed = storedSchema.safeParse(row?.value);
  if (!row || !parsed.success) {
    return {
      twoPersonRule: true,
      minPayoutUsd: DEFAULT_MIN_PAYOUT_USD,
      updatedAt: null,
      updatedBy: null,
      isDefault: true,
    };
  }
  return {
    twoPersonRule: parsed.data.two_person_rule,
    minPayoutUsd: formatUsd(parsed.data.min_payout_usd),
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
    isDefault: false,
  };
}

/**
 * Saves both rules and records the change (old and new) in the audit log, in one transaction. `drawnAt`: when the
 * rules a form showed were saved ("" for the defaults); a save made since by someone else refuses this one, which
 * would otherwise set back the rule they changed.
 */
export async function savePayoutSettings(
  db: Db,
  input: { twoPersonRule: boolean; minPayoutUsd: string; drawnAt?: string },
  { actor, via }: { actor: Actor; via: Via },
): Promise<PayoutSettings> {
  const value = { two_person_rule: input.twoPersonRule, min_payout_usd: formatUsd(input.minPayoutUsd) };
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, PAYOUT_SETTINGS_KEY);
    const previous = await readPayoutSettings(trx);
    if (input.drawnAt !== undefined && (previous.updatedAt?.toISOString() ?? "") !== input.drawnAt)
      throw new AppError(
        "CONFLICT",
        `${previous.updatedBy ?? "Someone"} changed the payout rules after this page was opened (now: minimum ` +
          `payout USD ${previous.minPayoutUsd}, two-person rule ${previous.twoPersonRule ? "on" : "off"}): nothing ` +
          "was saved. Reload the page and make your change again.",
      );
    await writeAppSetting(trx, { key: PAYOUT_SETTINGS_KEY, value, updatedBy: actor.email });
    await recordAudit(trx, {
      actor,
      via,
      action: "settings.payouts",
      target: PAYOUT_SETTINGS_KEY,
      outcome: "succeeded",
      detail: {
        from: { twoPersonRule: previous.twoPersonRule, minPayoutUsd: previous.minPayoutUsd },
        to: { twoPersonRule: input.twoPersonRule, minPayoutUsd: formatUsd(input.minPayoutUsd) },
      },
    });
  });
  return readPayoutSettings(db);
}
