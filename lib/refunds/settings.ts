import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { recordAudit } from "@/lib/audit";
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
  const row = await db
    .selectFrom("app_setting")
    .select(["value", "updated_at", "updated_by"])
    .where("key", "=", SUPPORT_REFUND_LIMIT_KEY)
    .executeTakeFirst();
  const parsed = storedSchema.safeParse(row?.value);
  if (!row || !parsed.success) {
    return { amountUsd: DEFAULT_SUPPORT_REFUND_LIMIT_USD, updatedAt: null, updatedBy: null, isDefault: true };
  }
  return {
    amountUsd: formatUsd(parsed.data.amount_usd),
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    isDefault: false,
  };
}

/** Saves the limit and records the change (old and new values) in the audit log, in one transaction. */
export async function saveSupportRefundLimit(
  db: Db,
  amountUsd: string,
  actor: { id: string; email: string },
): Promise<SupportRefundLimit> {
  const amount = formatUsd(amountUsd);
  const previous = await readSupportRefundLimit(db);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("app_setting")
      .values({
        key: SUPPORT_REFUND_LIMIT_KEY,
        value: JSON.stringify({ amount_usd: amount }),
        updated_at: new Date(),
        updated_by: actor.email,
      })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet({
          value: JSON.stringify({ amount_usd: amount }),
          updated_at: new Date(),
          updated_by: actor.email,
        }),
      )
      .execute();
    await recordAudit(trx, {
      actor,
      action: "settings.support_refund_limit",
      target: SUPPORT_REFUND_LIMIT_KEY,
      outcome: "succeeded",
      detail: { from: previous.amountUsd, to: amount },
    });
  });
  return readSupportRefundLimit(db);
}
