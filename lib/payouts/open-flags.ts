import "server-only";
import type { Db } from "@/db";
import { getPayoutBatchRow } from "@/db/queries/payout-ledger";
import { AppError } from "@/lib/errors";
import { isPaymentBar } from "@/lib/payments/items";
import { openFlagsOf, overrideOf, readBatchFlags } from "./flags";
import { listPayoutStatements } from "./statements";

export type OpenFlag = {
  flag: string;
  label: string;
  /** Null for a flag of the whole window. */
  recipientPlayerId: number | null;
  cause: string;
  detail: string;
};

/**
 * The flags of a batch still blocking a payment, evaluated now: each window flag once, then each recipient's own, for
 * the statements still to be decided (draft or held) and, while the batch is a draft, the approved ones (a flag raised
 * since their approval refuses the batch's), as approval reads them. Once the batch is approved, the statements still
 * to be paid (approved, or returned and owed again) list the flags that keep them out of a payment file (PAYMENT_BARS),
 * so that they can be overridden by their cause.
 */
export async function listOpenBatchFlags(db: Db, params: { gameId: string; batchId: string }): Promise<OpenFlag[]> {
  const batch = await getPayoutBatchRow(db, params);
  if (!batch) throw new AppError("NOT_FOUND", "No such payout batch for this game.");
  const flags = await readBatchFlags(db, { ...params, snapshotId: batch.snapshot_id });
  const open = flags.window.filter((f) => !overrideOf(f, flags.overrides));
  for (const s of await listPayoutStatements(db, params)) {
    const blocks = s.state === "draft" || s.state === "held" || (s.state === "approved" && batch.status === "draft");
    const toPay = batch.status !== "draft" && (s.state === "approved" || s.state === "returned");
    if (!blocks && !toPay) continue;
    const own = openFlagsOf(flags, s.recipientPlayerId, s.recipientFlags).filter((f) => f.recipientPlayerId !== null);
    open.push(...(blocks ? own : own.filter((f) => isPaymentBar(f.flag))));
  }
  return open.map((f) => ({
    flag: f.flag,
    label: f.label,
    recipientPlayerId: f.recipientPlayerId,
    cause: f.cause,
    detail: f.detail,
  }));
}
