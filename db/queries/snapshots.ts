import "server-only";
import { type ExpressionBuilder, sql } from "kysely";
import type { Db } from "@/db";
import type { Database, SnapshotDriftStatus, SnapshotPullStatus } from "@/db/types";
import type { TimeWindow } from "@/core/time";
import { unprocessedChanges } from "./flags";
import { windowOf } from "./time-window";

/**
 * Reads of window snapshots. Every query takes the game and filters by it; a snapshot id of another game finds
 * nothing. Staleness is evaluated here (lib/snapshots/stale.ts): a snapshot is stale when a mark inside its window
 * is newer than the moment its pull began reading.
 */

export type SnapshotHeader = {
  id: string;
  gameId: string;
  window: TimeWindow;
  version: number;
  publishedAt: Date;
  fetchStartedAt: Date;
  serviceGeneratedAt: Date;
  windowClosed: boolean;
  builtFrom: "single" | "split";
  takenByEmail: string | null;
  pageCount: number;
  requestCount: number;
  rateLimited: number;
  retries: number;
  durationMs: number;
  subWindowCount: number;
  lineCount: number;
  reversalCount: number;
  refundEventCount: number;
  totals: {
    renewalsSettled: number;
    settledGrossUsd: string;
    invoFeeUsd: string;
    partnerRevenueSettledUsd: string;
    partnerRevenueReversedUsd: string;
    partnerRevenueUsd: string;
    renewalsWithAttribution: number;
    renewalsWithoutAttribution: number;
    unattributedReasons: Record<string, number>;
    grossAttributedUsd: string;
    reversedAttributedUsd: string;
    netAttributedUsd: string;
    renewalsSettledThenFullyReversed: number;
    refundEventsInWindow: number;
    reversalsWithoutReceipts: number;
    recipientCount: number;
  };
  attributionNotice: Record<string, unknown>;
  report: Record<string, unknown>;
  checks: { name: string; expected: string; actual: string; ok: boolean }[];
  buildNotes: string[];
  drift: { status: SnapshotDriftStatus; count: number; comparedTo: string | null };
  /**
   * Set when the service reported a change inside the window after this version began reading: `marks` written, and
   * refunds or renewals received (`waiting`) whose processing will write theirs.
   */
  stale: { since: Date; reason: string; marks: number; waiting: number } | null;
  /** No newer version of the window was published when this header was read. */
  latest: boolean;
};

function staleMarks(eb: ExpressionBuilder<Database, "snapshot">) {
  return eb
    .selectFrom("snapshot_stale_mark as m")
    .whereRef("m.game_id", "=", "snapshot.game_id")
    .whereRef("m.instant", ">=", "snapshot.window_start")
    .whereRef("m.instant", "<", "snapshot.window_end")
    .whereRef("m.marked_at", ">", "snapshot.fetch_started_at");
}

/** The snapshot under `alias` is the latest version of its window: no newer one of the same game and window exists. */
export function isLatestVersion(alias: string) {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<boolean>`not exists (select 1 from snapshot as newer where newer.game_id = ${ref("game_id")}
    and newer.window_start = ${ref("window_start")} and newer.window_end = ${ref("window_end")}
    and newer.version > ${ref("version")})`;
}

/** Refunds and renewals inside the snapshot's window received since it began reading, not processed yet. */
function waitingChanges(db: Db) {
  return unprocessedChanges(db.selectFrom("webhook_event"), {
    gameId: sql.ref("snapshot.game_id"),
    windowStart: sql.ref("snapshot.window_start"),
    windowEnd: sql.ref("snapshot.window_end"),
    after: sql.ref("snapshot.fetch_started_at"),
  });
}

function headerQuery(db: Db, gameId: string) {
  return db
    .selectFrom("snapshot")
    .selectAll("snapshot")
    .select((eb) => [
      waitingChanges(db)
        .select((e) => e.fn.countAll<string>().as("n"))
        .as("waiting_changes"),
      waitingChanges(db)
        .select((e) => e.fn.min("webhook_event.received_at").as("since"))
        .as("waiting_since"),
      staleMarks(eb)
        .select((e) => e.fn.min("m.marked_at").as("since"))
        .as("stale_since"),
      staleMarks(eb)
        .select((e) => e.fn.countAll<string>().as("n"))
        .as("stale_marks"),
      staleMarks(eb).select("m.reason").orderBy("m.marked_at", "desc").limit(1).as("stale_reason"),
      isLatestVersion("snapshot").as("is_latest"),
    ])
    .where("snapshot.game_id", "=", gameId);
}

type HeaderRow = Awaited<ReturnType<ReturnType<typeof headerQuery>["executeTakeFirstOrThrow"]>>;

/**
 * Stale when a mark inside the window is newer than the version's reading, or while refunds or renewals inside it,
 * received since, wait to be processed (their marks are written only then; the window's flag says the same).
 */
function staleOf(r: HeaderRow): SnapshotHeader["stale"] {
  const marks = Number(r.stale_marks ?? 0);
  const waiting = Number(r.waiting_changes ?? 0);
  const since = [r.stale_since, r.waiting_since].filter((d) => d !== null).map((d) => new Date(d).getTime());
  if (since.length === 0 || marks + waiting === 0) return null;
  const reasons = [
    ...(marks > 0 ? [r.stale_reason ?? ""] : []),
    ...(waiting > 0
      ? [`${waiting} refund or renewal event${waiting === 1 ? "" : "s"} not processed yet (see Webhooks)`]
      : []),
  ];
  return { since: new Date(Math.min(...since)), reason: reasons.join("; "), marks, waiting };
}

function toHeader(r: HeaderRow): SnapshotHeader {
  return {
    id: r.id,
    gameId: r.game_id,
    window: windowOf(r),
    version: r.version,
    publishedAt: r.published_at,
    fetchStartedAt: r.fetch_started_at,
    serviceGeneratedAt: r.service_generated_at,
    windowClosed: r.window_closed,
    builtFrom: r.built_from,
    takenByEmail: r.taken_by_email,
    pageCount: r.page_count,
    requestCount: r.request_count,
    rateLimited: r.rate_limited,
    retries: r.retries,
    durationMs: r.duration_ms,
    subWindowCount: r.sub_window_count,
    lineCount: r.line_count,
    reversalCount: r.reversal_count,
    refundEventCount: r.refund_event_count,
    totals: {
      renewalsSettled: r.renewals_settled,
      settledGrossUsd: r.settled_gross_usd,
      invoFeeUsd: r.invo_fee_usd,
      partnerRevenueSettledUsd: r.partner_revenue_settled_usd,
      partnerRevenueReversedUsd: r.partner_revenue_reversed_usd,
      partnerRevenueUsd: r.partner_revenue_usd,
      renewalsWithAttribution: r.renewals_with_attribution,
      renewalsWithoutAttribution: r.renewals_without_attribution,
      unattributedReasons: r.unattributed_reasons,
      grossAttributedUsd: r.gross_attributed_usd,
      reversedAttributedUsd: r.reversed_attributed_usd,
      netAttributedUsd: r.net_attributed_usd,
      renewalsSettledThenFullyReversed: r.renewals_settled_then_fully_reversed,
      refundEventsInWindow: r.refund_events_in_window,
      reversalsWithoutReceipts: r.reversals_without_receipts,
      recipientCount: r.recipient_count,
    },
    attributionNotice: r.attribution_notice,
    report: r.report,
    checks: r.checks,
    buildNotes: r.build_notes,
    drift: { status: r.drift_status, count: r.drift_count, comparedTo: r.compared_to_snapshot_id },
    stale: staleOf(r),
    latest: r.is_latest,
  };
}

export async function getSnapshot(
  db: Db,
  params: { gameId: string; snapshotId: string },
): Promise<SnapshotHeader | null> {
  const row = await headerQuery(db, params.gameId).where("snapshot.id", "=", params.snapshotId).executeTakeFirst();
  return row ? toHeader(row) : null;
}

/**
 * The latest complete snapshot: of one window when given, else the most recently published of the game. Older
 * versions stay readable through listSnapshotVersions.
 */
export async function getLatestSnapshot(
  db: Db,
  params: { gameId: string; window?: TimeWindow },
): Promise<SnapshotHeader | null> {
  let query = headerQuery(db, params.gameId);
  if (params.window) {
    query = query
      .where("snapshot.window_start", "=", new Date(params.window.startMs))
      .where("snapshot.window_end", "=", new Date(params.window.endMs))
      .orderBy("snapshot.version", "desc");
  } else {
    query = query.orderBy("snapshot.published_at", "desc");
  }
  const row = await query.limit(1).executeTakeFirst();
  return row ? toHeader(row) : null;
}

export async function listSnapshotVersions(
  db: Db,
  params: { gameId: string; window: TimeWindow },
): Promise<SnapshotHeader[]> {
  const rows = await headerQuery(db, params.gameId)
    .where("snapshot.window_start", "=", new Date(params.window.startMs))
    .where("snapshot.window_end", "=", new Date(params.window.endMs))
    .orderBy("snapshot.version", "desc")
    .execute();
  return rows.map(toHeader);
}

/** The latest version of every window the game has snapshots of, newest window first, with how many versions exist. */
export async function listSnapshotWindows(
  db: Db,
  params: { gameId: string; limit?: number },
): Promise<(SnapshotHeader & { versions: number })[]> {
  const rows = await headerQuery(db, params.gameId)
    .select((eb) =>
      eb
        .selectFrom("snapshot as v")
        .select((e) => e.fn.countAll<string>().as("n"))
        .whereRef("v.game_id", "=", "snapshot.game_id")
        .whereRef("v.window_start", "=", "snapshot.window_start")
        .whereRef("v.window_end", "=", "snapshot.window_end")
        .as("versions"),
    )
    .where(isLatestVersion("snapshot"))
    .orderBy("snapshot.window_start", "desc")
    .orderBy("snapshot.window_end", "desc")
    .limit(params.limit ?? 24)
    .execute();
  return rows.map((row) => ({ ...toHeader(row), versions: Number(row.versions ?? 1) }));
}

// --- Pulls -----------------------------------------------------------------------------------------------------------

export type SnapshotPullView = {
  id: string;
  gameId: string;
  window: TimeWindow;
  status: SnapshotPullStatus;
  phase: string;
  via: string;
  requestedByEmail: string | null;
  requestedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  heartbeatAt: Date | null;
  attempts: number;
  snapshotId: string | null;
  pagesFetched: number;
  pagesEstimated: number | null;
  recipientsFetched: number;
  recipientsTotal: number | null;
  linesFetched: number;
  reversalsFetched: number;
  requests: number;
  rateLimited: number;
  retries: number;
  subWindows: number;
  etaAt: Date | null;
  error: { code: string; message: string } | null;
};

function pullQuery(db: Db, gameId: string) {
  return db.selectFrom("snapshot_pull").selectAll().where("game_id", "=", gameId);
}

function toPull(r: Awaited<ReturnType<ReturnType<typeof pullQuery>["executeTakeFirstOrThrow"]>>): SnapshotPullView {
  return {
    id: r.id,
    gameId: r.game_id,
    window: windowOf(r),
    status: r.status,
    phase: r.phase,
    via: r.via,
    requestedByEmail: r.requested_by_email,
    requestedAt: r.requested_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    heartbeatAt: r.heartbeat_at,
    attempts: r.attempts,
    snapshotId: r.snapshot_id,
    pagesFetched: r.pages_fetched,
    pagesEstimated: r.pages_estimated,
    recipientsFetched: r.recipients_fetched,
    recipientsTotal: r.recipients_total,
    linesFetched: r.lines_fetched,
    reversalsFetched: r.reversals_fetched,
    requests: r.requests,
    rateLimited: r.rate_limited,
    retries: r.retries,
    subWindows: r.sub_windows,
    etaAt: r.eta_at,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
  };
}

export async function getPull(db: Db, params: { gameId: string; pullId: string }): Promise<SnapshotPullView | null> {
  const row = await pullQuery(db, params.gameId).where("id", "=", params.pullId).executeTakeFirst();
  return row ? toPull(row) : null;
}

/** Pulls still queued or working, and the most recent finished ones (for the progress panel). */
export async function listRecentPulls(db: Db, params: { gameId: string; limit?: number }): Promise<SnapshotPullView[]> {
  const rows = await pullQuery(db, params.gameId)
    .orderBy(sql`case when status in ('queued', 'running', 'retrying') then 0 else 1 end`)
    .orderBy("requested_at", "desc")
    .limit(params.limit ?? 10)
    .execute();
  return rows.map(toPull);
}

export type DriftRow = {
  severity: "drift" | "notice";
  entity: string;
  entityKey: string;
  field: string;
  previousValue: string | null;
  currentValue: string | null;
};

export async function listSnapshotDrift(
  db: Db,
  params: { gameId: string; snapshotId: string; limit?: number },
): Promise<DriftRow[]> {
  const rows = await db
    .selectFrom("snapshot_drift as d")
    .innerJoin("snapshot as s", "s.id", "d.snapshot_id")
    .select(["d.severity", "d.entity", "d.entity_key", "d.field", "d.previous_value", "d.current_value"])
    .where("s.game_id", "=", params.gameId)
    .where("d.snapshot_id", "=", params.snapshotId)
    .orderBy("d.seq")
    .limit(params.limit ?? 200)
    .execute();
  return rows.map((r) => ({
    severity: r.severity,
    entity: r.entity,
    entityKey: r.entity_key,
    field: r.field,
    previousValue: r.previous_value,
    currentValue: r.current_value,
  }));
}

/** What the summary of a published snapshot is made of: its row and its sub-windows. */
export async function readSnapshotSummary(db: Db, snapshotId: string) {
  const snapshot = await db.selectFrom("snapshot").selectAll().where("id", "=", snapshotId).executeTakeFirstOrThrow();
  const parts = await db
    .selectFrom("snapshot_sub_window")
    .select(["scope", "recipient_player_id", "window_start", "window_end", "reason"])
    .where("snapshot_id", "=", snapshotId)
    .orderBy("seq")
    .execute();
  return { snapshot, parts };
}
