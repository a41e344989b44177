import "server-only";
import type { Db, DbOrTrx } from "@/db";
import { releaseAdvisoryLock, tryAdvisoryLock } from "@/db/queries/locks";
import { handBackPull, updatePull } from "@/db/queries/snapshot-pulls";
import type { Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { env } from "@/lib/env";
import { WorkerStoppedError } from "@/lib/jobs/queue";
import type { ServiceClientConfig } from "@/lib/service/client";
import { type TimeWindow, windowToQuery } from "@/lib/time";
import type { FetchProgress, PageRecord } from "./fetch";

/** What the requesting and the running of a pull share: their types, errors, limits and the window's lock. */

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
  /** Pages asked for ahead of the one being stored (FetchOptions.lookahead). */
  lookahead?: number;
};

/**
 * An attempt ended because its worker is stopping (`error` is the reason JobMeta.signal was aborted with), or because
 * its window's lock was lost: the pull is queued again for the job's retry, the attempt not counted, and true is
 * returned. Any other end, a failure that
 * came as the stop began among them, returns false and is recorded as such.
 */
export async function handBackIfStopped(
  db: Db,
  pullId: string,
  signal: AbortSignal | undefined,
  error: unknown,
): Promise<boolean> {
  const reason: unknown = signal?.reason;
  if (!(reason instanceof WorkerStoppedError) && !(reason instanceof PullLockLostError)) return false;
  if (error !== reason && (error as { cause?: unknown } | null)?.cause !== reason) return false;
  await handBackPull(
    db,
    pullId,
    reason instanceof PullLockLostError
      ? "the connection holding its window's lock was lost; it runs again"
      : undefined,
  );
  return true;
}

/**
 * The connection holding the window's lock ended during the attempt (a pooler or an administrator ending idle
 * sessions): another process may take the window now, so the attempt stops and is handed back, uncounted.
 */
export class PullLockLostError extends Error {
  readonly code = "PULL_LOCK_LOST";
  constructor(cause: Error) {
    super("The connection holding the window's lock was lost; the pull was handed back to run again.", { cause });
  }
}

/** The pull could not run now (another worker holds the window); try again later. */
export class PullBusyError extends Error {
  readonly code = "PULL_BUSY";
}

export class PullFailedError extends Error {
  /** The service asked for this long without a request before the next attempt (a 429's retry_after). */
  readonly retryAfterMs: number | null;
  constructor(
    message: string,
    readonly code: string,
    readonly final: boolean,
    options?: { cause?: unknown; retryAfterMs?: number | null },
  ) {
    super(message, options);
    this.name = "PullFailedError";
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

export const HEARTBEAT_MS = 10_000;
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

export function lockKey(gameId: string, window: TimeWindow): string {
  return `snapshot-pull|${gameId}|${window.startMs}|${window.endMs}`;
}

export type SnapshotRequest = {
  gameId: string;
  window: TimeWindow;
  requestedBy: Requester;
  /** Where the request came from: "ui", "cli", "schedule", ... */
  via: string;
};

/** True when no worker holds the window's lock right now. */
export async function isLockFree(db: Db, gameId: string, window: TimeWindow): Promise<boolean> {
  return db.connection().execute(async (conn) => {
    const key = lockKey(gameId, window);
    const free = await tryAdvisoryLock(conn, key);
    if (free) await releaseAdvisoryLock(conn, key);
    return free;
  });
}

/** Marks a pull failed with its error (the message cut to what the pull row keeps). */
export async function failPull(db: DbOrTrx, pullId: string, code: string, message: string): Promise<void> {
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

/** How far before a pull begins reading an open window it reads the window to (the service's clock may lag ours). */
export const OPEN_WINDOW_MARGIN_MS = 60_000;

/**
 * What a pull reads of its window, and the moment its figures are as of. A closed window is read whole, as of the
 * start of reading. An open one (ending after that moment) is read up to OPEN_WINDOW_MARGIN_MS before it, on a whole
 * second: what the service records while the pages are read falls after that bound, so the figures stand still from
 * the first page to the last (renewals every few seconds would otherwise change them between pages, and the read
 * would start over until it gave up). The snapshot is as of the bound: a stale mark made after it makes it stale.
 */
export function readingBounds(window: TimeWindow, startedAtMs: number): { read: TimeWindow; asOf: Date } {
  const bound = Math.floor((startedAtMs - OPEN_WINDOW_MARGIN_MS) / 1000) * 1000;
  if (window.endMs <= startedAtMs || bound <= window.startMs) return { read: window, asOf: new Date(startedAtMs) };
  return { read: { startMs: window.startMs, endMs: bound }, asOf: new Date(bound) };
}

/**
 * Ends a pull as failed and writes its audit line, in one transaction: the line names who asked for the pull, through
 * where it came, the error's code and the window.
 */
export async function failPullAudited(
  db: Db,
  pull: { id: string; gameId: string; window: TimeWindow; requestedBy: Requester; via: string },
  code: string,
  message: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await failPull(trx, pull.id, code, message);
    await recordAudit(trx, {
      actor: pull.requestedBy,
      via: auditVia(pull.via),
      action: "snapshot.pull",
      gameId: pull.gameId,
      target: pull.id,
      outcome: "failed",
      detail: { code, window: windowToQuery(pull.window) },
    });
  });
}
