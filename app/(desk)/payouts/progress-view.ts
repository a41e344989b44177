import type { SnapshotPullView } from "@/db/queries/snapshots";
import { pullRetryBudgetMs } from "@/lib/snapshots/pull";
import { formatInstant } from "@/lib/time";
import type { PullProgressView } from "./snapshot-progress";

/**
 * What the browser sees of a pull (the Payouts page and its progress route). An error the pull could not classify is
 * shown as a generic message: its text may be an internal detail (a database or configuration error), which stays
 * in the pull row and the server log.
 */
export function toProgressView(
  pull: SnapshotPullView,
): PullProgressView & { startedAt: string | null; snapshotId: string | null } {
  return {
    id: pull.id,
    gameId: pull.gameId,
    status: pull.status,
    phase: pull.phase,
    window: { start: formatInstant(pull.window.startMs), end: formatInstant(pull.window.endMs) },
    attempts: pull.attempts,
    pagesFetched: pull.pagesFetched,
    pagesEstimated: pull.pagesEstimated,
    recipientsFetched: pull.recipientsFetched,
    recipientsTotal: pull.recipientsTotal,
    linesFetched: pull.linesFetched,
    reversalsFetched: pull.reversalsFetched,
    rateLimited: pull.rateLimited,
    retries: pull.retries,
    subWindows: pull.subWindows,
    etaAt: pull.etaAt ? pull.etaAt.toISOString() : null,
    startedAt: pull.startedAt ? pull.startedAt.toISOString() : null,
    snapshotId: pull.snapshotId,
    retryBudgetMs: pullRetryBudgetMs(),
    error:
      pull.error && pull.error.code === "PULL_ERROR"
        ? {
            code: "PULL_ERROR",
            // A failed pull is over: no retry follows it; a new snapshot is asked for.
            message:
              pull.status === "failed"
                ? "The pull stopped on an internal error (logged) and is not retried: take the snapshot again."
                : "The pull stopped on an internal error (logged); it is retried automatically.",
          }
        : pull.error,
  };
}
