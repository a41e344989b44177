import "server-only";
import type { Db } from "@/db";
import { log } from "@/lib/log";
import { formatInstant } from "@/lib/time";

/**
 * What a landed refund changes elsewhere in Payout Desk. "each reversal is reported in the window of the refund
 * itself": the snapshot of the window holding `refundedAt` no longer matches the service and must be pulled again.
 *
 * This is the single call site for that. Window snapshots mark themselves stale through
 * `markWindowStale(db, gameId, instant, reason)` in lib/snapshots; until that module lands, the refund is logged here
 * and the webhook receiver's subscription.refunded event is the other path that marks the window.
 */
export async function markRefundWindowStale(
  _db: Db,
  gameId: string,
  refundedAt: Date,
  reason: { attemptId: string; subscriptionId: string; periodSeq: number },
): Promise<void> {
  log.info("refund landed; snapshot window to refresh", {
    game: gameId,
    refundedAt: formatInstant(refundedAt),
    attempt: reason.attemptId,
    subscription: reason.subscriptionId,
    periodSeq: reason.periodSeq,
  });
}
