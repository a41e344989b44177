import "server-only";
import { lockForTransaction } from "@/db/queries/locks";
import { z } from "zod";
import type { Db } from "@/db";
import { readAppSetting, writeAppSetting } from "@/db/queries/app-settings";
import type { ActingAs, Actor } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { formatUsdText } from "@/lib/format";
import { AppError } from "@/lib/errors";
import { decimalStringSchema, formatUsd } from "@/lib/money";

/** The app_setting row holding the largest refund a support user may make alone; above it, finance. */
export const SUPPORT_REFUND_LIMIT_KEY = "refunds.support_limit_usd";
/** Used until an admin sets a limit. */
export const DEFAULT_SUPPORT_REFUND_LIMIT_USD = "50.00";

const storedSchema = z.object({ amount_usd: decimalStringSchema });

export type SupportRefundLimit = {
  amountUsd: string;
  updatedAt: Date | null;
  updatedBy: string | null;
  isDefault: boolean;
};

export async function readSupportRefundLimit(db: Db): Promise<SupportRefundLimit> {
  const row = await readAppSetting(db, SUPPORT_REFUND_LIMIT_KEY);
  const parsed = storedSchema.safeParse(row?.value);
  if (!row || !parsed.success) {
    return { amountUsd: DEFAULT_SUPPORT_REFUND_LIMIT_USD, updatedAt: null, updatedBy: null, isDefault: true };
  }
  return {
    amountUsd: formatUsd(parsed.data.amount_usd),
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
    isDefault: false,
  };
}

/**
 * Saves the limit and records the change (old and new values) in the audit log, in one transaction. `drawnAt` is when
 * the limit the page showed was saved ("" for the default): a limit another admin saved since is not overwritten
 * unseen.
 */
export async function saveSupportRefundLimit(
  db: Db,
  amountUsd: string,
  as: ActingAs & { actor: Actor },
  drawnAt?: string,
): Promise<SupportRefundLimit> {
  const amount = formatUsd(amountUsd);
  await db.transaction().execute(async (trx) => {
    // One change at a time, so that each audit line's "from" is what that change replaced.
    await lockForTransaction(trx, SUPPORT_REFUND_LIMIT_KEY);
    const previous = await readSupportRefundLimit(trx);
    if (drawnAt !== undefined && (previous.updatedAt?.toISOString() ?? "") !== drawnAt)
      throw new AppError(
        "CONFLICT",
        `${previous.updatedBy ?? "Someone"} changed the support refund limit after this page was opened (now ` +
          `${formatUsdText(previous.amountUsd)} per period): nothing was saved. Reload the page and make your change ` +
          "again.",
      );
    await writeAppSetting(trx, {
      key: SUPPORT_REFUND_LIMIT_KEY,
      value: { amount_usd: amount },
      updatedBy: as.actor.email,
    });
    await recordAudit(trx, {
      ...as,
      action: "settings.support_refund_limit",
      target: SUPPORT_REFUND_LIMIT_KEY,
      outcome: "succeeded",
      detail: { from: previous.amountUsd, to: amount },
    });
  });
  return readSupportRefundLimit(db);
}
