import "server-only";
import { randomUUID } from "node:crypto";
import { type Db, type Trx, transactionWithConnection } from "@/db";
import { holdSessionLock } from "@/db/queries/locks";
import { getPullRow, getPullStatus, startPullAttempt, updatePull } from "@/db/queries/snapshot-pulls";
import { windowOf } from "@/db/queries/time-window";
import { AppError } from "@/lib/errors";
import { answeredForAnotherGame } from "@/lib/service/answered-game";
import { log } from "@/lib/log";
import type { RequestLogEntry, ServiceClient, ServiceClientConfig } from "@/lib/service/client";
import { formatInstant, type TimeWindow } from "@/lib/time";
import { createCapturingClient } from "./capture";
import { type FetchProgress, fetchWindow, type PageInfo, type ReportSource, SnapshotIncompleteError } from "./fetch";
import { completenessChecks } from "./merge";
import { classifyPullFailure } from "./pull-failure";
import { progressWriter } from "./progress-writer";
import {
  auditVia,
  failPullAudited,
  handBackIfStopped,
  HEARTBEAT_MS,
  lockKey,
  MAX_PULL_ATTEMPTS,
  PullBusyError,
  PullLockLostError,
  PullFailedError,
  type PullProgress,
  type PullSummary,
  pullRetryBudgetMs,
  readingBounds,
  type RunPullOptions,
} from "./pull-common";
import {
  type LoadedPrevious,
  loadPreviousVersion,
  type PublishResult,
  publishSnapshot,
  type RowWriter,
  withRowWriter,
} from "./store";
import { refreshStatisticsAfterBulkWrite } from "@/lib/statistics";
import { summarizeSnapshot } from "./summary";

/** Running a pull: one attempt reads every page, checks the whole and publishes it, or records why it failed. */

// --- Reading pages with their raw text --------------------------------------------------------------------------

export async function createReportSource(
  db: Db,
  gameId: string,
  overrides: Partial<ServiceClientConfig> = {},
): Promise<{ source: ReportSource; client: ServiceClient }> {
  const { client, capture } = await createCapturingClient(db, gameId, overrides);
  const source: ReportSource = {
    async report(input, signal, onReceived) {
      const { value, raw } = await capture((c) => c.getAttributionReport(input, { signal }), onReceived);
      // The secret saved for this game answers for another (an admin pasted another game's secret): its revenue
      // must never become this game's snapshot, paid twice. Final: every page would answer the same.
      if (value.report.game_id !== gameId)
        throw new AppError("CONFLICT", `${answeredForAnotherGame(value.report.game_id, gameId)}; nothing was stored.`);
      return { report: value, raw };
    },
  };
  return { source, client };
}

// --- Running ----------------------------------------------------------------------------------------------------

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
  if (pull.status === "failed") throw finishedPull(pull);
  const window = windowOf(pull);
  const key = lockKey(pull.game_id, window);

  // A lock lost midway ends the attempt: another process may take the window and pull it at the same time.
  const lockLost = new AbortController();
  const lock = await holdSessionLock(db, key, (error) => lockLost.abort(new PullLockLostError(error)));
  if (!lock) throw new PullBusyError("Another worker is pulling this window right now.");
  const heartbeat = setInterval(() => {
    void lock.check();
    void updatePull(db, pullId, { heartbeat_at: new Date() }, "running").catch(() => {});
  }, HEARTBEAT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, lockLost.signal]) : lockLost.signal;
  try {
    return await attemptPull(db, pull, window, { ...options, signal });
  } finally {
    clearInterval(heartbeat);
    await lock.release();
    const lost = lock.lost();
    if (lost) log.warn("the connection holding a pull's window lock was lost during the pull", { pullId, error: lost });
  }
}

/** The final error of a pull that failed for good: what its row says. */
function finishedPull(row: { error_code: string | null; error_message: string | null }): PullFailedError {
  return new PullFailedError(row.error_message ?? "The pull failed.", row.error_code ?? "PULL_FAILED", true);
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
  const attempt = await startPullAttempt(db, { pullId: pull.id, jobId: options.jobId ?? null });
  // Finished while this job waited for the lock: published, or failed for good (no later job revives it).
  if (!attempt) {
    const now = await getPullStatus(db, pull.id);
    if (now.status === "complete" && now.snapshot_id) return summarizeSnapshot(db, now.snapshot_id);
    throw finishedPull(now);
  }
  // On the database's clock, as the stale marks a snapshot is judged by: an open window is read up to a moment just
  // before reading began, and its snapshot is as of that moment.
  const bounds = readingBounds(window, attempt.startedAt.getTime());
  // Counted on the pull, not the job: a pull re-queued by recovery still gives up after MAX_PULL_ATTEMPTS.
  const finalAttempt = options.finalAttempt === true || attempt.attempts >= MAX_PULL_ATTEMPTS;

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
  let published: { snapshotId: string; version: number };
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
    const read: PageRead = {
      pull,
      window,
      bounds,
      options,
      source,
      client,
      report,
      previous,
      writer,
      takenBy,
      started,
      snapshotId,
    };
    // One transaction from the first page to publication: rows are written as pages arrive, and either all of it
    // commits with the pull's "complete" status or none of it does. The pages are copied in over its connection.
    published = await transactionWithConnection(db, (trx, connection) =>
      withRowWriter(trx, connection, snapshotId, (rowWriter) => readAndPublish(db, trx, rowWriter, read)),
    );
  } catch (error) {
    await writer.flush();
    if (await handBackIfStopped(db, pull.id, options.signal, error)) throw options.signal?.reason;
    const classified = classifyPullFailure(error, clientConfig.retryBudgetMs);
    const { code, final, retryAfterMs } = classified;
    const last = finalAttempt || final;
    // A wait no later attempt keeps (the command line's pull): the person takes the snapshot again after it.
    const message =
      last && retryAfterMs
        ? `${classified.message} Take the snapshot again after ${formatInstant(new Date(Date.now() + retryAfterMs))}.`
        : classified.message;
    if (last) {
      const failed = { id: pull.id, gameId: pull.game_id, window, requestedBy: takenBy, via: pull.via };
      await failPullAudited(db, failed, code, message);
    } else {
      await updatePull(
        db,
        pull.id,
        {
          status: "retrying",
          error_code: code,
          error_message: message.slice(0, 500),
          updated_at: new Date(),
          eta_at: null,
          // Queued again to start after the wait the service asked for (pull-job.handler.ts): said when.
          phase: retryAfterMs
            ? `waiting to retry at ${formatInstant(new Date(Date.now() + retryAfterMs))}`
            : "waiting to retry",
        },
        "unfinished",
      );
    }
    throw new PullFailedError(message, code, last, { cause: error, retryAfterMs });
  }
  // Published: the pull is complete whatever fails from here on. A job tried again finds it so and reads its summary.
  try {
    const summary = await summarizeSnapshot(db, published.snapshotId);
    await refreshStatisticsAfterBulkWrite(
      db,
      ["snapshot_line", "snapshot_recipient", "snapshot_reversal", "snapshot_page"],
      summary.lines + summary.recipients,
    );
    return summary;
  } catch (error) {
    const { code, message } = classifyPullFailure(error, clientConfig.retryBudgetMs);
    const why = message.replace(/\.?$/, ".");
    throw new PullFailedError(
      `The snapshot was published (version ${published.version}), but reading what it holds failed: ${why} ` +
        "Open the window in the app to see it; taking it again is not needed.",
      code,
      false,
      { cause: error },
    );
  }
}

/** What reading a pull's pages and publishing them works with, made by its attempt (attemptPull). */
type PageRead = {
  pull: PullRow;
  window: TimeWindow;
  bounds: ReturnType<typeof readingBounds>;
  options: RunPullOptions;
  source: ReportSource;
  client: ServiceClient;
  /** Tells the pull's progress (forced: written at once rather than at the writer's pace). */
  report: (p: FetchProgress, force?: boolean) => void;
  /** The previous version, read while the pages come in; a failure to read it held until it is awaited. */
  previous: Promise<{ ok: true; value: LoadedPrevious } | { ok: false; error: unknown }>;
  writer: ReturnType<typeof progressWriter>;
  takenBy: { id: string; email: string } | null;
  started: number;
  snapshotId: string;
};

/**
 * Reads every page of the window into `rowWriter` inside the pull's transaction `trx`, checks that the whole adds up
 * and publishes it, in the same transaction.
 */
async function readAndPublish(
  db: Db,
  trx: Trx,
  rowWriter: RowWriter,
  { pull, window, bounds, options, source, client, report, previous, writer, takenBy, started, snapshotId }: PageRead,
): Promise<PublishResult> {
  // Rows are compared with a comparable previous version while the next pages are read, not after the last one
  // (the lines in the database, once all are written).
  void previous.then((loaded) => {
    if (loaded.ok && loaded.value?.comparable) rowWriter.compareWith(loaded.value.comparable);
  });
  const fetched = await fetchWindow(source, bounds.read, {
    signal: options.signal,
    lookahead: options.lookahead,
    lookaheadTogether: client.pacer.mode === "off",
    onPage: async (page) => {
      // The page's text is the writer's from here: nothing else holds it once it is written.
      await rowWriter.addPage(page);
      await options.onPage?.(page);
    },
    onProgress: (p) => report(p),
    onRecipients: (recipients) => rowWriter.addRecipients(recipients),
    onPart: (recipients, pagesRead) => rowWriter.addPartLines(recipients, pagesRead),
    onRestart: (kept) => rowWriter.reset(kept.length),
  });
  report({ ...lastProgress(fetched), phase: "checking completeness" }, true);
  // A window read in parts has its recipients now: their rows are queued to be written while it is checked.
  if (fetched.linesWritten) rowWriter.addMergedRecipients(fetched.recipients);
  // One turn of the event loop first: the writes queued (the merged recipients among them) go to the database,
  // which stores them while the checks run here.
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
    fetchStartedAt: bounds.asOf,
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
}

function lastProgress(fetched: {
  pages: PageInfo[];
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
