import "server-only";
import type { Trx } from "@/db";
import { createSavepoint, releaseSavepoint, rollbackToSavepoint } from "@/db/queries/locks";
import { log } from "@/lib/log";
import { markWindowStale } from "@/lib/snapshots/stale";

/**
 * What a landed refund changes elsewhere in Payout Desk: "each reversal is reported in the window of the refund
 * itself", so the snapshot of the window holding `refundedAt` no longer matches the service. This is the single call
 * site for it, run inside the transaction that records the refund, so the mark cannot be lost to a crash in between.
 * A savepoint keeps a failure of the mark from undoing the record of the refund.
 */
export async function markRefundWindowStale(
  trx: Trx,
  gameId: string,
  refundedAt: Date,
  detail: { attemptId: string; subscriptionId: string; periodId: number | null; periodSeq: number },
): Promise<void> {
  await createSavepoint(trx, "refund_stale_mark");
  try {
    await markWindowStale(trx, gameId, refundedAt, "refund made in Payout Desk", {
      subscriptionId: detail.subscriptionId,
      ...(detail.periodId !== null ? { periodId: detail.periodId } : {}),
      periodSeq: detail.periodSeq,
      refundAttemptId: detail.attemptId,
    });
    await releaseSavepoint(trx, "refund_stale_mark");
  } catch (error) {
    await rollbackToSavepoint(trx, "refund_stale_mark");
    log.error("could not mark the refund's window stale", { game: gameId, attempt: detail.attemptId, error });
  }
}
