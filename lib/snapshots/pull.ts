import "server-only";

/**
 * A pull: the request (a snapshot_pull row), the work (read every page, assemble, check) and its publication.
 *
 * - One pull per game and window at a time: a partial unique index refuses a second active request, and the worker
 *   holds a PostgreSQL advisory lock on the window for as long as it works, which the server drops by itself if the
 *   process dies.
 * - Nothing is written but progress until the whole snapshot is published in one transaction (lib/snapshots/store.ts),
 *   so a pull killed part-way leaves no trace in the published tables; its attempt starts afresh, queued by pg-boss's
 *   retry, by the recovery job, or by asking for the same window again.
 */
export {
  auditVia,
  MAX_PULL_ATTEMPTS,
  ORPHAN_AFTER_MS,
  PullBusyError,
  PullFailedError,
  type PullProgress,
  type PullSummary,
  pullRetryBudgetMs,
  type Requester,
  type RunPullOptions,
  type SnapshotRequest,
} from "./pull-common";
export { queuePull, recoverPulls, requestSnapshot, takeSnapshotNow } from "./pull-request";
export { createReportSource, runPull } from "./pull-run";
export { summarizeSnapshot } from "./summary";
