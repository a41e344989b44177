import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db";
import { gameExists } from "@/db/queries/games";
import { releaseAdvisoryLock, tryAdvisoryLock } from "@/db/queries/locks";
import {
  findActivePull,
  getPullRow,
  getPullStatus,
  insertQueuedPull,
  listQuietActivePulls,
  startPullAttempt,
  updatePull,
} from "@/db/queries/snapshot-pulls";
import { readSnapshotSummary } from "@/db/queries/snapshots";
import { windowOf } from "@/db/queries/time-window";
import type { Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError, isAppError } from "@/lib/errors";
import { env } from "@/lib/env";
import { enqueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import type { RequestLogEntry, ServiceClient, ServiceClientConfig } from "@/lib/service/client";
import { isRetryable, isServiceError } from "@/lib/service/errors";
import { formatInstant, type TimeWindow, windowProblem } from "@/lib/time";
import { createCapturingClient } from "./capture";
import { type FetchProgress, fetchWindow, type PageRecord, type ReportSource, SnapshotIncompleteError } from "./fetch";
import { pullSnapshotJob } from "./pull-job";
import { progressWriter } from "./progress-writer";
import { formatDuration } from "./progress";
import { completenessChecks } from "./merge";
import { createRowWriter, loadPreviousVersion, publishSnapshot } from "./store";

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

export type Requester = Actor | null;

export type PullSummary = {
  pullId: string;
  snapshotId: string;
  version: number;
  gameId: string;
  window: { start: string; end: string };
  windowClosed: boolean;
  builtFrom: "single" | "split";
  totals: {
    renewalsSettled: number;
    settledGrossUsd: string;
    grossAttributedUsd: string;
    reversedAttributedUsd: string;
    netAttributedUsd: string;
    refundEventsInWindow: number;
    recipientCount: number;
  };
  recipients: number;
  lines: number;
  reversals: number;
  refundEvents: number;
  pages: number;
  requests: number;
  subWindows: { scope: string; recipientPlayerId: number | null; start: string; end: string; reason: string }[];
  rateLimited: number;
  retries: number;
  durationMs: number;
  drift: { status: string; differences: number; comparedTo: string | null };
};

export type PullProgress = FetchProgress & {
  pullId: string;
  rateLimited: number;
  retries: number;
  requests: number;
  elapsedMs: number;
  etaMs: number | null;
};

export type RunPullOptions = {
  jobId?: string;
  /** The final attempt marks the pull failed on any error; earlier ones leave it "retrying". */
  finalAttempt?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: PullProgress) => void;
  onPage?: (page: PageRecord) => void | Promise<void>;
  /** Client settings for tests and benches (timeouts, retries, pacing, fetch). */
  clientOverrides?: Partial<ServiceClientConfig>;
};

/** The pull could not run now (another worker holds the window); try again later. */
export class PullBusyError extends Error {
  readonly code = "PULL_BUSY";
}

export class PullFailedError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly final: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PullFailedError";
  }
}

const HEARTBEAT_MS = 10_000;
/** Attempts of one pull before it is marked failed (the job's retries, and re-queues after a dead worker). */
export const MAX_PULL_ATTEMPTS = 5;
/** A pull whose heartbeat is older than this, and whose lock is free, was abandoned by a dead worker. */
export const ORPHAN_AFTER_MS = 60_000;

/**
 * How long a pull rides out a service outage on one page (429, 5xx, dropped answers, timeouts) before it gives up:
 * PAYOUT_DESK_PULL_RETRY_MINUTES, default 15. The page is asked again, never the window from its start.
 */
export function pullRetryBudgetMs(): number {
  return env().PAYOUT_DESK_PULL_RETRY_MINUTES * 60_000;
}

/** Through what a pull's request came, as the audit log says it: the desk, the command line or a job. */
export function auditVia(requestVia: string): Via {
  if (requestVia === "cli") return "cli";
  if (requestVia === "ui" || requestVia === "web") return "web";
  return "job";
}

function lockKey(gameId: string, window: TimeWindow): string {
  return `snapshot-pull|${gameId}|${window.startMs}|${window.endMs}`;
}

// --- Reading pages with their raw text --------------------------------------------------------------------------

export async function createReportSource(
  db: Db,
  gameId: string,
  overrides: Partial<ServiceClientConfig> = {},
): Promise<{ source: ReportSource; client: ServiceClient }> {
  const { client, capture } = await createCapturingClient(db, gameId, overrides);
  const source: ReportSource = {
    async report(input, signal) {
      const { value, raw } = await capture((c) => c.getAttributionReport(input, { signal }));
      return { report: value, raw };
    },
  };
  return { source, client };
}

// --- Requesting -------------------------------------------------------------------------------------------------

export type SnapshotRequest = {
  gameId: string;
  window: TimeWindow;
  requestedBy: Requester;
  /** Where the request came from: "ui", "cli", "schedule", ... */
  via: string;
};

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

async function activePull(db: Db, gameId: string, window: TimeWindow) {
  return findActivePull(db, { gameId, window });
}

/** Inserts a queued pull, or returns the one already active for this window. */
async function claimPull(db: Db, request: SnapshotRequest): Promise<{ pullId: string; existing: boolean }> {
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
  const id = randomUUID();
  try {
    await insertQueuedPull(db, {
      id,
      gameId: request.gameId,
      window: request.window,
      via: request.via,
      requestedBy: request.requestedBy,
    });
    return { pullId: id, existing: false };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const active = await activePull(db, request.gameId, request.window);
    if (!active) throw error;
    return { pullId: active.id, existing: true };
  }
}

/** True when no worker holds the window's lock right now. */
async function isLockFree(db: Db, gameId: string, window: TimeWindow): Promise<boolean> {
  return db.connection().execute(async (conn) => {
    const key = lockKey(gameId, window);
    const free = await tryAdvisoryLock(conn, key);
    if (free) await releaseAdvisoryLock(conn, key);
    return free;
  });
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

async function queuePull(db: Db, pullId: string): Promise<void> {
  const jobId = await enqueue(pullSnapshotJob, { pullId });
  await updatePull(db, pullId, { job_id: jobId, updated_at: new Date() });
}

/**
 * Asks for a snapshot of a window: queues a background pull, or returns the pull already under way for the same
 * game and window (re-queued if its worker died). Used by the Payouts page and by scheduled pulls.
 */
export async function requestSnapshot(
  db: Db,
  request: SnapshotRequest,
): Promise<{ pullId: string; deduplicated: boolean }> {
  const claimed = await claimPull(db, request);
  if (claimed.existing) {
    const active = await activePull(db, request.gameId, request.window);
    if (active && (await isOrphaned(db, active, request.gameId, request.window))) await queuePull(db, active.id);
    return { pullId: claimed.pullId, deduplicated: true };
  }
  try {
    await queuePull(db, claimed.pullId);
  } catch (error) {
    // A request that cannot be queued must not block the window.
    await failPull(db, claimed.pullId, "QUEUE_UNAVAILABLE", "The job queue could not take the pull.");
    throw error;
  }
  await recordAudit(db, {
    actor: request.requestedBy,
    via: auditVia(request.via),
    action: "snapshot.request",
    gameId: request.gameId,
    target: claimed.pullId,
    outcome: "queued",
    detail: {
      window: { start: formatInstant(request.window.startMs), end: formatInstant(request.window.endMs) },
      via: request.via,
    },
  });
  return { pullId: claimed.pullId, deduplicated: false };
}

async function failPull(db: Db, pullId: string, code: string, message: string): Promise<void> {
  await updatePull(
    db,
    pullId,
    {
      status: "failed",
      error_code: code,
      error_message: message.slice(0, 500),
      finished_at: new Date(),
      updated_at: new Date(),
      eta_at: null,
      phase: "failed",
    },
    "unfinished",
  );
}

// --- Running ----------------------------------------------------------------------------------------------------

/**
 * Errors that another attempt cannot fix. A service failure reaching here is final either way: a refusal (400, 401,
 * 403, 404) answers the same every time, and anything else was already retried on its page for the whole budget.
 */
function classify(
  error: unknown,
  retryBudgetMs: number | undefined,
): { code: string; message: string; final: boolean } {
  if (error instanceof SnapshotIncompleteError) return { code: error.code, message: error.message, final: true };
  if (isAppError(error)) return { code: error.code, message: error.message, final: error.code !== "SERVICE_ERROR" };
  if (isServiceError(error)) {
    const code = error.code ?? (error.status ? `HTTP_${error.status}` : error.kind.toUpperCase());
    if (!isRetryable(error, true)) {
      return {
        code,
        message: error.kind === "http" ? `The service refused the report: ${error.message}` : error.message,
        final: true,
      };
    }
    if (retryBudgetMs === undefined) return { code, message: error.message, final: false };
    const tries = `${error.attempts} attempt${error.attempts === 1 ? "" : "s"}`;
    return {
      code,
      message:
        `The service kept failing for ${formatDuration(retryBudgetMs)}, the retry budget of one page (${tries}); ` +
        `last: ${error.message}`,
      final: true,
    };
  }
  if (error instanceof PullBusyError) return { code: error.code, message: error.message, final: false };
  const coded = error as { code?: unknown; message?: unknown };
  const code = typeof coded?.code === "string" && /^[A-Z_]+$/.test(coded.code) ? coded.code : "PULL_ERROR";
  return { code, message: error instanceof Error ? error.message : String(error), final: false };
}

/**
 * Runs one attempt of a pull to publication. Idempotent: a pull already complete returns its snapshot; a pull that
 * another worker is running throws PullBusyError. Within an attempt a failing page is asked again until the retry
 * budget is spent (pullRetryBudgetMs); an attempt that still fails starts from the first page, since nothing of an
 * earlier attempt was kept.
 */
export async function runPull(db: Db, pullId: string, options: RunPullOptions = {}): Promise<PullSummary> {
  const pull = await getPullRow(db, pullId);
  if (!pull) throw new PullFailedError(`No snapshot pull ${pullId}.`, "NOT_FOUND", true);
  if (pull.status === "complete" && pull.snapshot_id) return summarizeSnapshot(db, pull.snapshot_id);
  if (pull.status === "failed")
    throw new PullFailedError(pull.error_message ?? "The pull failed.", pull.error_code ?? "PULL_FAILED", true);
  const window = windowOf(pull);
  const key = lockKey(pull.game_id, window);

  return db.connection().execute(async (conn) => {
    if (!(await tryAdvisoryLock(conn, key)))
      throw new PullBusyError("Another worker is pulling this window right now.");
    const heartbeat = setInterval(() => {
      void updatePull(db, pullId, { heartbeat_at: new Date() }, "running").catch(() => {});
    }, HEARTBEAT_MS);
    try {
      const fresh = await getPullStatus(db, pullId);
      if (fresh.status === "complete" && fresh.snapshot_id) return await summarizeSnapshot(db, fresh.snapshot_id);
      return await attemptPull(db, pull, window, options);
    } finally {
      clearInterval(heartbeat);
      await releaseAdvisoryLock(conn, key).catch(() => {});
    }
  });
}

type PullRow = {
  id: string;
  game_id: string;
  via: string;
  requested_by_id: string | null;
  requested_by_email: string | null;
};

async function attemptPull(db: Db, pull: PullRow, window: TimeWindow, options: RunPullOptions): Promise<PullSummary> {
  const started = performance.now();
  const fetchStartedAt = new Date();
  const attempts = await startPullAttempt(db, {
    pullId: pull.id,
    startedAt: fetchStartedAt,
    jobId: options.jobId ?? null,
  });
  // Counted on the pull, not the job: a pull re-queued by recovery still gives up after MAX_PULL_ATTEMPTS.
  const finalAttempt = options.finalAttempt === true || attempts >= MAX_PULL_ATTEMPTS;

  const writer = progressWriter(db, pull.id);
  // Every page is retried through failures within the budget, so a pull resumes at the page that failed.
  let onRetry: ((entry: RequestLogEntry) => void) | null = null;
  const clientConfig: Partial<ServiceClientConfig> = {
    retryBudgetMs: pullRetryBudgetMs(),
    ...options.clientOverrides,
    log: (entry) => {
      options.clientOverrides?.log?.(entry);
      if (entry.willRetry) onRetry?.(entry);
    },
  };
  const takenBy =
    pull.requested_by_id && pull.requested_by_email
      ? { id: pull.requested_by_id, email: pull.requested_by_email }
      : null;
  try {
    const { source, client } = await createReportSource(db, pull.game_id, clientConfig);
    const report = (p: FetchProgress, force = false) => {
      const stats = client.stats();
      const elapsedMs = performance.now() - started;
      const remaining = Math.max(0, p.pagesEstimated - p.pagesFetched);
      const etaMs = p.pagesFetched > 0 ? Math.round((elapsedMs / p.pagesFetched) * remaining) : null;
      const progress: PullProgress = {
        ...p,
        pullId: pull.id,
        rateLimited: stats.rateLimited,
        retries: stats.retries,
        requests: stats.attempts,
        elapsedMs,
        etaMs,
      };
      options.onProgress?.(progress);
      writer.update(progress, force);
      latest = p;
    };
    let latest: FetchProgress | null = null;
    // An outage shows on the pull while it lasts: which failure, and that the same page is asked again.
    onRetry = (entry) => {
      if (!latest) return;
      const failure = entry.status === null ? `failed (${entry.errorCode ?? "no answer"})` : `answered ${entry.status}`;
      report(
        { ...latest, phase: `the service ${failure}; asking for the same page again (attempt ${entry.attempt + 1})` },
        true,
      );
    };
    // The previous version is read while the pages come in; a rejection is held until it is awaited.
    const previous = loadPreviousVersion(db, pull.game_id, window).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const snapshotId = randomUUID();
    // One transaction from the first page to publication: rows are written as pages arrive, and either all of it
    // commits with the pull's "complete" status or none of it does.
    const published = await db.transaction().execute(async (trx) => {
      const rowWriter = await createRowWriter(trx, snapshotId);
      // Rows are compared with a comparable previous version while the next pages are read, not after the last one.
      void previous.then((loaded) => {
        if (loaded.ok && loaded.value?.comparable) rowWriter.compareWith(loaded.value.comparable);
      });
      const fetched = await fetchWindow(source, window, {
        signal: options.signal,
        onPage: async (page) => {
          rowWriter.addPage(page);
          await options.onPage?.(page);
        },
        onProgress: (p) => report(p),
        onRecipients: (recipients) => rowWriter.addRecipients(recipients),
        onRestart: (kept) => rowWriter.reset(kept),
      });
      report({ ...lastProgress(fetched), phase: "checking completeness" }, true);
      // One turn of the event loop first: the last page's rows go to the database, which stores them while the
      // checks run here.
      await new Promise((resolve) => setImmediate(resolve));
      const checks = completenessChecks(fetched);
      const failed = checks.filter((c) => !c.ok);
      if (failed.length > 0) {
        throw new SnapshotIncompleteError(
          `the report does not add up: ${failed
            .map((c) => `${c.name} (expected ${c.expected}, got ${c.actual})`)
            .join("; ")}`,
        );
      }
      report({ ...lastProgress(fetched), phase: "publishing" }, true);
      await writer.flush();
      const stats = client.stats();
      const loaded = await previous;
      if (!loaded.ok) throw loaded.error;
      const result = await publishSnapshot(db, trx, {
        previous: loaded.value,
        writer: rowWriter,
        snapshotId,
        pullId: pull.id,
        gameId: pull.game_id,
        window,
        fetched,
        checks,
        takenBy,
        via: auditVia(pull.via),
        fetchStartedAt,
        fetchFinishedAt: new Date(),
        stats: { requests: stats.attempts, rateLimited: stats.rateLimited, retries: stats.retries },
        durationMs: performance.now() - started,
      });
      log.info("snapshot published", {
        game: pull.game_id,
        snapshot: result.snapshotId,
        version: result.version,
        pages: fetched.pages.length,
        drift: result.driftStatus,
      });
      return result;
    });
    return summarizeSnapshot(db, published.snapshotId);
  } catch (error) {
    await writer.flush();
    const { code, message, final } = classify(error, clientConfig.retryBudgetMs);
    const last = finalAttempt || final;
    if (last) await failPull(db, pull.id, code, message);
    else {
      await updatePull(
        db,
        pull.id,
        {
          status: "retrying",
          error_code: code,
          error_message: message.slice(0, 500),
          updated_at: new Date(),
          eta_at: null,
          phase: "waiting to retry",
        },
        "unfinished",
      );
    }
    if (last) {
      await recordAudit(db, {
        actor: takenBy,
        via: auditVia(pull.via),
        action: "snapshot.pull",
        gameId: pull.game_id,
        target: pull.id,
        outcome: "failed",
        detail: { code, window: { start: formatInstant(window.startMs), end: formatInstant(window.endMs) } },
      });
    }
    throw new PullFailedError(message, code, last, { cause: error });
  }
}

function lastProgress(fetched: {
  pages: PageRecord[];
  recipients: { periods: unknown[]; reversals: unknown[] }[];
  subWindows: unknown[];
}): FetchProgress {
  return {
    phase: "",
    pagesFetched: fetched.pages.length,
    pagesEstimated: fetched.pages.length,
    recipientsFetched: fetched.recipients.length,
    recipientsTotal: fetched.recipients.length,
    linesFetched: fetched.recipients.reduce((n, r) => n + r.periods.length, 0),
    reversalsFetched: fetched.recipients.reduce((n, r) => n + r.reversals.length, 0),
    subWindows: fetched.subWindows.length,
  };
}

/** The summary of a published snapshot (what the CLI prints). */
export async function summarizeSnapshot(db: Db, snapshotId: string): Promise<PullSummary> {
  const { snapshot: s, parts } = await readSnapshotSummary(db, snapshotId);
  return {
    pullId: s.pull_id,
    snapshotId: s.id,
    version: s.version,
    gameId: s.game_id,
    window: { start: formatInstant(s.window_start), end: formatInstant(s.window_end) },
    windowClosed: s.window_closed,
    builtFrom: s.built_from,
    totals: {
      renewalsSettled: s.renewals_settled,
      settledGrossUsd: s.settled_gross_usd,
      grossAttributedUsd: s.gross_attributed_usd,
      reversedAttributedUsd: s.reversed_attributed_usd,
      netAttributedUsd: s.net_attributed_usd,
      refundEventsInWindow: s.refund_events_in_window,
      recipientCount: s.recipient_count,
    },
    recipients: s.recipient_count,
    lines: s.line_count,
    reversals: s.reversal_count,
    refundEvents: s.refund_event_count,
    pages: s.page_count,
    requests: s.request_count,
    subWindows: parts.map((p) => ({
      scope: p.scope,
      recipientPlayerId: p.recipient_player_id === null ? null : Number(p.recipient_player_id),
      start: formatInstant(p.window_start),
      end: formatInstant(p.window_end),
      reason: p.reason,
    })),
    rateLimited: s.rate_limited,
    retries: s.retries,
    durationMs: s.duration_ms,
    drift: { status: s.drift_status, differences: s.drift_count, comparedTo: s.compared_to_snapshot_id },
  };
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
    await queuePull(db, pull.id);
    await updatePull(db, pull.id, { heartbeat_at: new Date(now) });
    requeued.push(pull.id);
  }
  if (requeued.length > 0) log.info("snapshot pulls re-queued", { pulls: requeued });
  return requeued;
}
