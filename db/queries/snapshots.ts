import "server-only";
import { type ExpressionBuilder, sql } from "kysely";
import type { Db } from "@/db";
import type { Database, SnapshotDriftStatus, SnapshotPullStatus } from "@/db/types";
import { formatUsd } from "@/core/money";
import type { TimeWindow } from "@/core/time";

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
  /** Set when the service reported a change inside the window after this version began reading. */
  stale: { since: Date; reason: string; marks: number } | null;
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
    and newer.window_start = ${ref("window_start")} and newer.window_end = ${ref("window_end")} and newer.version > ${ref("version")})`;
}

function headerQuery(db: Db, gameId: string) {
  return db
    .selectFrom("snapshot")
    .selectAll("snapshot")
    .select((eb) => [
      staleMarks(eb)
        .select((e) => e.fn.min("m.marked_at").as("since"))
        .as("stale_since"),
      staleMarks(eb)
        .select((e) => e.fn.countAll<string>().as("n"))
        .as("stale_marks"),
      staleMarks(eb).select("m.reason").orderBy("m.marked_at", "desc").limit(1).as("stale_reason"),
    ])
    .where("snapshot.game_id", "=", gameId);
}

type HeaderRow = Awaited<ReturnType<ReturnType<typeof headerQuery>["executeTakeFirstOrThrow"]>>;

function toHeader(r: HeaderRow): SnapshotHeader {
  const marks = Number(r.stale_marks ?? 0);
  return {
    id: r.id,
    gameId: r.game_id,
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
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
    stale: marks > 0 && r.stale_since ? { since: new Date(r.stale_since), reason: r.stale_reason ?? "", marks } : null,
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
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
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

// --- Recipients ------------------------------------------------------------------------------------------------------

export const RECIPIENT_SORTS = [
  "net",
  "gross",
  "reversed",
  "renewals",
  "recipient",
  "email",
  "last_paid",
  "rank",
] as const;
export type RecipientSort = (typeof RECIPIENT_SORTS)[number];

export type RecipientPayoutRow = {
  recipientPlayerId: number;
  serviceRank: number;
  resolved: boolean;
  playerEmail: string | null;
  playerName: string | null;
  identityId: string | null;
  renewalCount: number;
  subscriptionCount: number;
  reversalCount: number;
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  netAttributedUsd: string;
  firstPaidAt: Date | null;
  lastPaidAt: Date | null;
};

export type RecipientPayoutQuery = {
  gameId: string;
  snapshotId: string;
  sort?: RecipientSort;
  dir?: "asc" | "desc";
  /** Prefix of the email or name, or a recipient id. */
  q?: string;
  /** "unresolved": recipients the service could not resolve; "reversals": with reversals in the window; "negative": net below zero. */
  filter?: "unresolved" | "reversals" | "negative";
  page?: number;
  pageSize?: number;
};

const SORT_COLUMN = {
  net: "r.net_attributed_usd",
  gross: "r.gross_attributed_usd",
  reversed: "r.reversed_attributed_usd",
  renewals: "r.renewal_count",
  recipient: "r.recipient_player_id",
  email: "r.player_email",
  last_paid: "r.last_paid_at",
  rank: "r.service_rank",
} as const;

/**
 * One page of a snapshot's recipients, sorted, filtered and counted in SQL (indexes on (snapshot_id, figure desc,
 * recipient_player_id) serve the figure sorts). Ties break on the recipient id so pages never overlap.
 */
export async function listRecipientPayouts(
  db: Db,
  params: RecipientPayoutQuery,
): Promise<{ rows: RecipientPayoutRow[]; total: number; page: number; pageSize: number }> {
  const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 500);
  const page = Math.max(params.page ?? 1, 1);
  let base = db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("r.snapshot_id", "=", params.snapshotId);
  const q = params.q?.trim().toLowerCase();
  if (q) {
    const prefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) =>
      eb.or([
        eb(sql`lower(r.player_email)`, "like", prefix),
        eb(sql`lower(r.player_name)`, "like", prefix),
        ...(/^\d{1,15}$/.test(q) ? [eb("r.recipient_player_id", "=", q)] : []),
      ]),
    );
  }
  if (params.filter === "unresolved") base = base.where("r.resolved", "=", false);
  if (params.filter === "reversals") base = base.where("r.reversal_count", ">", 0);
  if (params.filter === "negative") base = base.where("r.net_attributed_usd", "<", "0");
  const sort = SORT_COLUMN[params.sort ?? "net"];
  const dir =
    params.dir ?? (params.sort === "recipient" || params.sort === "email" || params.sort === "rank" ? "asc" : "desc");
  const [rows, count] = await Promise.all([
    base
      .select([
        "r.recipient_player_id",
        "r.service_rank",
        "r.resolved",
        "r.player_email",
        "r.player_name",
        "r.identity_id",
        "r.renewal_count",
        "r.subscription_count",
        "r.reversal_count",
        "r.gross_attributed_usd",
        "r.reversed_attributed_usd",
        "r.net_attributed_usd",
        "r.first_paid_at",
        "r.last_paid_at",
      ])
      .orderBy(sql.ref(sort), (ob) => (dir === "asc" ? ob.asc() : ob.desc()).nullsLast())
      .orderBy("r.recipient_player_id", "asc")
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      recipientPlayerId: Number(r.recipient_player_id),
      serviceRank: r.service_rank,
      resolved: r.resolved,
      playerEmail: r.player_email,
      playerName: r.player_name,
      identityId: r.identity_id,
      renewalCount: r.renewal_count,
      subscriptionCount: r.subscription_count,
      reversalCount: r.reversal_count,
      grossAttributedUsd: r.gross_attributed_usd,
      reversedAttributedUsd: r.reversed_attributed_usd,
      netAttributedUsd: r.net_attributed_usd,
      firstPaidAt: r.first_paid_at,
      lastPaidAt: r.last_paid_at,
    })),
    total: Number(count?.n ?? 0),
    page,
    pageSize,
  };
}

export type SnapshotLineRow = {
  periodId: number;
  subscriptionId: string;
  periodSeq: number;
  itemId: string;
  itemName: string;
  status: string;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date | null;
  amountUsd: string;
  invoFeeUsd: string | null;
  partnerRevenueSettledUsd: string | null;
  percentAtRenewal: string | null;
  baseUsd: string | null;
  attributedAmountUsd: string | null;
  transactionId: string | null;
};

/** A recipient's renewal lines in a snapshot, in settlement order. */
export async function listRecipientLines(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId: number; page?: number; pageSize?: number },
): Promise<{ rows: SnapshotLineRow[]; total: number }> {
  const pageSize = Math.min(Math.max(params.pageSize ?? 100, 1), 1000);
  const page = Math.max(params.page ?? 1, 1);
  const base = db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("l.snapshot_id", "=", params.snapshotId)
    .where("l.recipient_player_id", "=", String(params.recipientPlayerId));
  const [rows, count] = await Promise.all([
    base
      .select([
        "l.period_id",
        "l.subscription_id",
        "l.period_seq",
        "l.item_id",
        "l.item_name",
        "l.status",
        "l.period_start",
        "l.period_end",
        "l.paid_at",
        "l.amount_usd",
        "l.invo_fee_usd",
        "l.partner_revenue_settled_usd",
        "l.percent_at_renewal",
        "l.base_usd",
        "l.attributed_amount_usd",
        "l.transaction_id",
      ])
      .orderBy("l.paid_at")
      .orderBy("l.period_id")
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      periodId: Number(r.period_id),
      subscriptionId: r.subscription_id,
      periodSeq: r.period_seq,
      itemId: r.item_id,
      itemName: r.item_name,
      status: r.status,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      paidAt: r.paid_at,
      amountUsd: r.amount_usd,
      invoFeeUsd: r.invo_fee_usd,
      partnerRevenueSettledUsd: r.partner_revenue_settled_usd,
      percentAtRenewal: r.percent_at_renewal,
      baseUsd: r.base_usd,
      attributedAmountUsd: r.attributed_amount_usd,
      transactionId: r.transaction_id,
    })),
    total: Number(count?.n ?? 0),
  };
}

export type SnapshotReversalRow = {
  periodId: number;
  recipientPlayerId: number;
  subscriptionId: string;
  periodSeq: number;
  status: string;
  paidAt: Date | null;
  settledInThisWindow: boolean;
  amountUsd: string;
  originallyAttributedUsd: string;
  refundedToDateUsd: string;
  latestRefundAt: Date | null;
  reversedAttributedUsd: string;
  partnerRevenueReversedUsd: string;
  reversalBasis: string;
  netsToZeroInWindow: boolean;
  note: string | null;
  events: {
    seq: number;
    refundedAt: Date;
    refundedAmountUsd: string;
    cumulativeRefundedBeforeUsd: string;
    cumulativeRefundedAfterUsd: string;
    reversedAttributedUsd: string;
    partnerRevenueReversedUsd: string;
    partnerRevenueReversalBasis: string;
    isFullRefund: boolean;
  }[];
};

/**
 * Reversals in a snapshot (of one recipient when given), oldest refund first, each with every refund event
 * (cumulative before and after, basis). Amounts to the cent.
 */
export async function listSnapshotReversals(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId?: number; limit?: number },
): Promise<SnapshotReversalRow[]> {
  let query = db
    .selectFrom("snapshot_reversal as v")
    .innerJoin("snapshot as s", "s.id", "v.snapshot_id")
    .selectAll("v")
    .where("s.game_id", "=", params.gameId)
    .where("v.snapshot_id", "=", params.snapshotId);
  if (params.recipientPlayerId !== undefined)
    query = query.where("v.recipient_player_id", "=", String(params.recipientPlayerId));
  const rows = await query
    .orderBy("v.latest_refund_at")
    .orderBy("v.period_id")
    .limit(params.limit ?? 500)
    .execute();
  if (rows.length === 0) return [];
  const events = await db
    .selectFrom("snapshot_refund_event")
    .selectAll()
    .where("snapshot_id", "=", params.snapshotId)
    .where(
      "period_id",
      "in",
      rows.map((r) => r.period_id),
    )
    .orderBy("period_id")
    .orderBy("seq")
    .execute();
  const byPeriod = new Map<string, SnapshotReversalRow["events"]>();
  for (const e of events) {
    const list = byPeriod.get(e.period_id) ?? [];
    list.push({
      seq: e.seq,
      refundedAt: e.refunded_at,
      refundedAmountUsd: formatUsd(e.refunded_amount_usd),
      cumulativeRefundedBeforeUsd: formatUsd(e.cumulative_refunded_before_usd),
      cumulativeRefundedAfterUsd: formatUsd(e.cumulative_refunded_after_usd),
      reversedAttributedUsd: formatUsd(e.reversed_attributed_usd),
      partnerRevenueReversedUsd: formatUsd(e.partner_revenue_reversed_usd),
      partnerRevenueReversalBasis: e.partner_revenue_reversal_basis,
      isFullRefund: e.is_full_refund,
    });
    byPeriod.set(e.period_id, list);
  }
  return rows.map((r) => ({
    periodId: Number(r.period_id),
    recipientPlayerId: Number(r.recipient_player_id),
    subscriptionId: r.subscription_id,
    periodSeq: r.period_seq,
    status: r.status,
    paidAt: r.paid_at,
    settledInThisWindow: r.settled_in_this_window,
    amountUsd: formatUsd(r.amount_usd),
    originallyAttributedUsd: formatUsd(r.originally_attributed_usd),
    refundedToDateUsd: formatUsd(r.refunded_to_date_usd),
    latestRefundAt: r.latest_refund_at,
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    partnerRevenueReversedUsd: formatUsd(r.partner_revenue_reversed_usd),
    reversalBasis: r.reversal_basis,
    netsToZeroInWindow: r.nets_to_zero_in_window,
    note: r.note,
    events: byPeriod.get(r.period_id) ?? [],
  }));
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

export type SubWindowRow = {
  scope: "window" | "recipient";
  recipientPlayerId: number | null;
  window: TimeWindow;
  depth: number;
  reason: string;
  pages: number;
};

export async function listSubWindows(db: Db, params: { gameId: string; snapshotId: string }): Promise<SubWindowRow[]> {
  const rows = await db
    .selectFrom("snapshot_sub_window as w")
    .innerJoin("snapshot as s", "s.id", "w.snapshot_id")
    .select(["w.scope", "w.recipient_player_id", "w.window_start", "w.window_end", "w.depth", "w.reason", "w.pages"])
    .where("s.game_id", "=", params.gameId)
    .where("w.snapshot_id", "=", params.snapshotId)
    .orderBy("w.seq")
    .execute();
  return rows.map((r) => ({
    scope: r.scope,
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
    depth: r.depth,
    reason: r.reason,
    pages: r.pages,
  }));
}

/** The raw pages a snapshot was built from, in the order they were read (bodies as the service sent them). */
export async function listSnapshotPages(
  db: Db,
  params: { gameId: string; snapshotId: string; withBody?: boolean },
): Promise<
  {
    seq: number;
    window: TimeWindow;
    recipientPlayerId: number | null;
    offset: number;
    fetchedAt: Date;
    body: string | null;
  }[]
> {
  const rows = await db
    .selectFrom("snapshot_page as p")
    .innerJoin("snapshot as s", "s.id", "p.snapshot_id")
    .select(["p.seq", "p.window_start", "p.window_end", "p.recipient_player_id", "p.page_offset", "p.fetched_at"])
    .$if(params.withBody === true, (qb) => qb.select("p.body"))
    .where("s.game_id", "=", params.gameId)
    .where("p.snapshot_id", "=", params.snapshotId)
    .orderBy("p.seq")
    .execute();
  return rows.map((r) => ({
    seq: r.seq,
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
    offset: r.page_offset,
    fetchedAt: r.fetched_at,
    body: "body" in r ? (r as { body: string }).body : null,
  }));
}
