import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db";
import { gameExists } from "@/db/queries/games";
import { findActivePull, insertQueuedPull, listQuietActivePulls, updatePull } from "@/db/queries/snapshot-pulls";
import { windowOf } from "@/db/queries/time-window";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { enqueue, jobWaiting } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { type TimeWindow, windowProblem, windowToQuery } from "@/lib/time";
import {
  auditVia,
  failPullAudited,
  isLockFree,
  ORPHAN_AFTER_MS,
  PullBusyError,
  type PullSummary,
  type RunPullOptions,
  type SnapshotRequest,
} from "./pull-common";
import { pullSnapshotJob } from "./pull-job";
import { runPull } from "./pull-run";

/** Requesting a pull: claiming the window, queueing the job, adopting or re-queueing a pull a dead worker left. */

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

async function activePull(db: Db, gameId: string, window: TimeWindow) {
  return findActivePull(db, { gameId, window });
}

/** How often a request tries to claim a window whose active pull ends while it asks. */
const CLAIM_ATTEMPTS = 3;

/**
 * Inserts a queued pull, or returns the one already active for this window. `audited`: a new pull is written with its
 * `snapshot.request` audit line, in one transaction.
 */
async function claimPull(
  db: Db,
  request: SnapshotRequest,
  options: { audited?: boolean } = {},
): Promise<{ pullId: string; existing: boolean }> {
  const problem = windowProblem(request.window);
  if (problem)
    throw new AppError(
      "INVALID_INPUT",
      problem === "WINDOW_TOO_LONG"
        ? "A window may span at most 400 days."
        : "The window's end must be after its start.",
      { field: "end" },
    );
  if (!(await gameExists(db, request.gameId))) throw new AppError("NOT_FOUND", `No game ${request.gameId}.`);
  for (let attempt = 1; ; attempt++) {
    const id = randomUUID();
    try {
      await db.transaction().execute(async (trx) => {
        await insertQueuedPull(trx, {
          id,
          gameId: request.gameId,
          window: request.window,
          via: request.via,
          requestedBy: request.requestedBy,
        });
        if (!options.audited) return;
        await recordAudit(trx, {
          actor: request.requestedBy,
          via: auditVia(request.via),
          action: "snapshot.request",
          gameId: request.gameId,
          target: id,
          outcome: "queued",
          detail: {
            window: windowToQuery(request.window),
            via: request.via,
          },
        });
      });
      return { pullId: id, existing: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const active = await activePull(db, request.gameId, request.window);
      if (active) return { pullId: active.id, existing: true };
      // The pull that held the window ended between the two statements (published, or failed): it is free again.
      // Said to the person who asked (a refusal, not a failure of the desk).
      if (attempt === CLAIM_ATTEMPTS)
        throw new AppError("CONFLICT", "Other pulls of this window kept starting and ending; try again in a moment.");
    }
  }
}

async function isOrphaned(
  db: Db,
  pull: { heartbeat_at: Date | null; updated_at: Date },
  gameId: string,
  window: TimeWindow,
): Promise<boolean> {
  const seen = (pull.heartbeat_at ?? pull.updated_at).getTime();
  if (Date.now() - seen < ORPHAN_AFTER_MS) return false;
  return isLockFree(db, gameId, window);
}

/**
 * Queues the pull's job, to start at once or after the given wait (a 429's retry_after). Whether a job was queued:
 * none when the queue already holds this pull's job (one waiting at a time, maybe to start later), whose id stays.
 */
export async function queuePull(db: Db, pullId: string, startAfterMs = 0): Promise<boolean> {
  const startAfterSeconds = startAfterMs > 0 ? Math.ceil(startAfterMs / 1000) : undefined;
  const jobId = await enqueue(pullSnapshotJob, { pullId }, { startAfterSeconds });
  await updatePull(db, pullId, { ...(jobId === null ? {} : { job_id: jobId }), updated_at: new Date() });
  return jobId !== null;
}

/**
 * Asks for a snapshot of a window: queues a background pull, or returns the pull already under way for the same
 * game and window (re-queued if its worker died). Used by the Payouts page and by scheduled pulls. `readingAlready`:
 * the pull returned was already reading the window, so a change made just before this request may be missing from
 * what it publishes (a caller that asks because of such a change asks again once it has ended).
 */
export async function requestSnapshot(
  db: Db,
  request: SnapshotRequest,
): Promise<{ pullId: string; deduplicated: boolean; readingAlready: boolean }> {
  const claimed = await claimPull(db, request, { audited: true });
  if (claimed.existing) {
    const active = await activePull(db, request.gameId, request.window);
    const orphaned = active !== undefined && (await isOrphaned(db, active, request.gameId, request.window));
    // An orphaned pull is queued again and reads the window anew, as does one waiting to retry. One that ended (or
    // gave way to another) since the claim found it read before this request: reading already, for the caller.
    if (active && orphaned) await queuePull(db, active.id);
    const joined = active?.id === claimed.pullId ? active : undefined;
    return {
      pullId: claimed.pullId,
      deduplicated: true,
      readingAlready: joined === undefined || (joined.status === "running" && !orphaned),
    };
  }
  try {
    await queuePull(db, claimed.pullId);
  } catch (error) {
    // A request that cannot be queued must not block the window.
    // The request's line is written; the failure's says the pull it asked for ended there.
    await failPullAudited(
      db,
      { ...request, id: claimed.pullId },
      "QUEUE_UNAVAILABLE",
      "The job queue could not take the pull.",
    );
    throw error;
  }
  return { pullId: claimed.pullId, deduplicated: false, readingAlready: false };
}

/**
 * Takes a snapshot in this process, through the same pull as the background job (the CLI, benches and tests): claims
 * the window (or adopts an abandoned pull of it) and runs it to publication.
 */
export async function takeSnapshotNow(
  db: Db,
  request: SnapshotRequest,
  options: RunPullOptions = {},
): Promise<PullSummary> {
  const claimed = await claimPull(db, request);
  if (claimed.existing) {
    const active = await activePull(db, request.gameId, request.window);
    if (active && !(await isLockFree(db, request.gameId, request.window))) {
      throw new PullBusyError(`A pull of this window is already running (pull ${active.id}).`);
    }
  }
  return runPull(db, claimed.pullId, { finalAttempt: true, ...options });
}

/** Re-queues pulls abandoned by a dead worker (run every minute by the recovery job). Returns the pulls re-queued. */
export async function recoverPulls(db: Db, now = Date.now()): Promise<string[]> {
  const stale = await listQuietActivePulls(db, { before: new Date(now - ORPHAN_AFTER_MS) });
  const requeued: string[] = [];
  for (const pull of stale) {
    // A queued or retrying pull normally has a job waiting; one whose job is gone shows no activity either.
    if (!(await isLockFree(db, pull.game_id, windowOf(pull)))) continue;
    // Its job waits to run (queued to start later, or out its retry's delay, which can outlast the heartbeat's
    // silence): queued again, the pull would skip that delay and the job's next run would find it busy or done.
    if (pull.job_id && (await jobWaiting(pullSnapshotJob, pull.job_id))) continue;
    const queued = await queuePull(db, pull.id);
    await updatePull(db, pull.id, { heartbeat_at: new Date(now) });
    // Not re-queued when its job still waits (a pull the service asked to wait: queued to start after it).
    if (queued) requeued.push(pull.id);
  }
  if (requeued.length > 0) log.info("snapshot pulls re-queued", { pulls: requeued });
  return requeued;
}
