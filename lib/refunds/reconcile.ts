import "server-only";
import type { Db } from "@/db";
import { listStalePendingAttempts } from "@/db/queries/refund-leases";
import { findRefundAttempt, findRefundAttemptGameId, type RefundAttempt } from "@/db/queries/refunds";
import { log } from "@/lib/log";
import { driveRefundAttempt, type RefundOutcome } from "./attempts";
import { SYSTEM_CLOCK, type LeaseClock } from "./lease";

/** A pending attempt untouched for this long is taken to be abandoned (a live request holds a claim instead). */
export const STALE_AFTER_SECONDS = 60;

export type ReconcileSummary = { examined: number; outcomes: { id: string; state: RefundOutcome["state"] }[] };

/**
 * Calls the service again for every stale pending attempt, with the attempt's own key and parameters, and records
 * the outcome like an interactive call would.
 */
export async function reconcilePendingRefunds(
  db: Db,
  options: { idleSeconds?: number; limit?: number; attemptId?: string; clock?: LeaseClock } = {},
): Promise<ReconcileSummary> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  let attempts: RefundAttempt[];
  if (options.attemptId) {
    const gameId = await findRefundAttemptGameId(db, options.attemptId);
    const one = gameId ? await findRefundAttempt(db, gameId, options.attemptId) : null;
    attempts = one && one.status === "pending" ? [one] : [];
  } else {
    attempts = await listStalePendingAttempts(db, {
      idleSeconds: options.idleSeconds ?? STALE_AFTER_SECONDS,
      limit: options.limit ?? 50,
      nowMs: await clock.leaseNow(db),
    });
  }
  const outcomes: ReconcileSummary["outcomes"] = [];
  for (const attempt of attempts) {
    try {
      const outcome = await driveRefundAttempt(db, attempt, { waitMs: 0, source: "reconciler", clock });
      outcomes.push({ id: attempt.id, state: outcome.state });
    } catch (error) {
      log.error("refund reconcile failed", { attempt: attempt.id, error });
    }
  }
  if (outcomes.length > 0) log.info("refunds reconciled", { examined: attempts.length, outcomes });
  return { examined: attempts.length, outcomes };
}
