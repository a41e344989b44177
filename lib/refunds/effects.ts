import "server-only";
import { sql, type Transaction } from "kysely";
import type { Database } from "@/db/types";
import { log } from "@/lib/log";
import { markWindowStale } from "@/lib/snapshots/stale";

/**
 * What a landed refund changes elsewhere in Payout Desk: "each reversal is reported in the window of the refund
 * itself", so the snapshot of the window holding `refundedAt` no longer matches the service. This is the single call
 * site for it, run inside the transaction that records the refund, so the mark cannot be lost to a crash in between.
 * A savepoint keeps a failure of the mark from undoing the record of the refund.
 */
export async function markRefundWindowStale(
  trx: Transaction<Database>,
  gameId: string,
  refundedAt: Date,
  detail: { attemptId: string; subscriptionId: string; periodId: number | null; periodSeq: number },
): Promise<void> {
  await sql`savepoint refund_stale_mark`.execute(trx);
  try {
    await markWindowStale(trx, gameId, refundedAt, "refund made in Payout Desk", {
      subscriptionId: detail.subscriptionId,
      ...(detail.periodId !== null ? { periodId: detail.periodId } : {}),
      periodSeq: detail.periodSeq,
      refundAttemptId: detail.attemptId,
    });
    await sql`release savepoint refund_stale_mark`.execute(trx);
  } catch (error) {
    await sql`rollback to savepoint refund_stale_mark`.execute(trx);
    log.error("could not mark the refund's window stale", { game: gameId, attempt: detail.attemptId, error });
  }
}
