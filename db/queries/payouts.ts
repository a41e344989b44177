import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { PayoutStatementState } from "@/db/types";
import { formatUsd, money } from "@/core/money";
import { formatInstant, type TimeWindow } from "@/core/time";
import { isLatestVersion } from "./snapshots";

/**
 * Reads for the payout pages: the recipient payout table of a window (sorted, filtered and paginated in SQL), top
 * recipients over months and a recipient's history (the liability is in liability.ts). Every query filters by game.
 */

export const PAYOUT_TABLE_SORTS = [
  "recipient",
  "renewals",
  "subscriptions",
  "gross",
  "reversed",
  "net",
  "carried_in",
  "payable",
  "state",
] as const;
export type PayoutTableSort = (typeof PAYOUT_TABLE_SORTS)[number];
export const PAYOUT_TABLE_FILTERS = ["flagged", "unresolved", "negative", "reversals", "carried_in"] as const;
export type PayoutTableFilter = (typeof PAYOUT_TABLE_FILTERS)[number];
export const STATEMENT_STATES: readonly PayoutStatementState[] = ["draft", "approved", "held", "paid", "carried"];

export type PayoutTableRow = {
  recipientPlayerId: number;
  statementId: string | null;
  resolved: boolean;
  playerEmail: string | null;
  playerName: string | null;
  inSnapshot: boolean;
  renewalCount: number;
  subscriptionCount: number;
  reversalCount: number;
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  netAttributedUsd: string;
  /** Null before a batch is prepared (carries are only taken in by a statement). */
  carriedInUsd: string | null;
  payableUsd: string | null;
  state: PayoutStatementState | null;
  holdReason: string | null;
  recipientFlags: string[];
};

export type PayoutTableQuery = {
  gameId: string;
  snapshotId: string;
  /** The window's live batch, when one is prepared: the table then lists its statements. */
  batchId?: string | null;
  sort: PayoutTableSort;
  dir: "asc" | "desc";
  q?: string;
  filter?: PayoutTableFilter;
  state?: PayoutStatementState;
  page: number;
  pageSize: number;
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const STATEMENT_SORT: Record<PayoutTableSort, string> = {
  recipient: "st.recipient_player_id",
  renewals: "st.renewal_count",
  subscriptions: "st.subscription_count",
  gross: "st.gross_attributed_usd",
  reversed: "st.reversed_attributed_usd",
  net: "st.net_attributed_usd",
  carried_in: "st.carried_in_usd",
  payable: "st.payable_usd",
  state: "st.state",
};

const SNAPSHOT_SORT: Record<PayoutTableSort, string> = {
  recipient: "r.recipient_player_id",
  renewals: "r.renewal_count",
  subscriptions: "r.subscription_count",
  gross: "r.gross_attributed_usd",
  reversed: "r.reversed_attributed_usd",
  net: "r.net_attributed_usd",
  // Before a batch exists there is nothing carried in or payable yet: these fall back to net.
  carried_in: "r.net_attributed_usd",
  payable: "r.net_attributed_usd",
  state: "r.recipient_player_id",
};

/**
 * Ties break on the player id so pages never overlap. Figure indexes are (figure desc, player id asc): the tie-break
 * runs against the figure's direction so that the same index, read forwards or backwards, serves both directions.
 */
function tieBreak(params: Pick<PayoutTableQuery, "sort" | "dir">): "asc" | "desc" {
  if (params.sort === "state" || params.sort === "recipient") return params.dir;
  return params.dir === "asc" ? "desc" : "asc";
}

function direction(dir: "asc" | "desc", reverse: boolean): "asc" | "desc" {
  if (!reverse) return dir;
  return dir === "asc" ? "desc" : "asc";
}

/** Past this many rows, a page is read from the far end of the order (OFFSET reads and drops every skipped row). */
const DEEP_OFFSET = 5_000;

/**
 * Reads one page and the total. A page in the second half of a large result is read in the reverse order with the
 * small offset from the end, then turned back around: the last page costs what the first does.
 */
async function fetchPage<R>(
  params: Pick<PayoutTableQuery, "pageSize">,
  offset: number,
  count: () => Promise<{ n: string } | undefined>,
  page: (reverse: boolean, offset: number, limit: number) => Promise<R[]>,
): Promise<{ rows: R[]; total: number }> {
  if (offset < DEEP_OFFSET) {
    const [rows, counted] = await Promise.all([page(false, offset, params.pageSize), count()]);
    return { rows, total: Number(counted?.n ?? 0) };
  }
  const total = Number((await count())?.n ?? 0);
  if (offset >= total) return { rows: [], total };
  const limit = Math.min(params.pageSize, total - offset);
  if (offset < total / 2) return { rows: await page(false, offset, limit), total };
  const rows = await page(true, total - offset - limit, limit);
  return { rows: rows.reverse(), total };
}

/**
 * One page of the recipient payout table. With a batch: its statements (every snapshot recipient, plus recipients
 * who only carry a balance in). Without: the snapshot's recipients. Search matches a prefix of the email or name, or
 * the exact player id; ties break on the player id so pages never overlap.
 */
export async function listPayoutTable(
  db: Db,
  params: PayoutTableQuery,
): Promise<{ rows: PayoutTableRow[]; total: number }> {
  const q = params.q?.trim().toLowerCase() ?? "";
  const prefix = `${escapeLike(q)}%`;
  const isId = /^\d{1,15}$/.test(q);
  const offset = (params.page - 1) * params.pageSize;

  if (params.batchId) {
    let base = db
      .selectFrom("payout_statement as st")
      .where("st.game_id", "=", params.gameId)
      .where("st.batch_id", "=", params.batchId);
    if (q) {
      base = base.where((eb) =>
        eb.or([
          eb(sql`lower(st.player_email)`, "like", prefix),
          eb(sql`lower(st.player_name)`, "like", prefix),
          ...(isId ? [eb("st.recipient_player_id", "=", q)] : []),
        ]),
      );
    }
    if (params.state) base = base.where("st.state", "=", params.state);
    if (params.filter === "flagged") base = base.where(sql<boolean>`jsonb_array_length(st.recipient_flags) > 0`);
    if (params.filter === "unresolved") base = base.where("st.resolved", "=", false);
    if (params.filter === "negative") base = base.where("st.net_attributed_usd", "<", "0");
    if (params.filter === "reversals") base = base.where("st.reversal_count", ">", 0);
    if (params.filter === "carried_in") base = base.where("st.carried_in_usd", "<>", "0");
    const { rows, total } = await fetchPage(
      params,
      offset,
      () => base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirst(),
      (reverse, off, limit) =>
        base
          .select([
            "st.id",
            "st.recipient_player_id",
            "st.resolved",
            "st.player_email",
            "st.player_name",
            "st.in_snapshot",
            "st.renewal_count",
            "st.subscription_count",
            "st.reversal_count",
            "st.gross_attributed_usd",
            "st.reversed_attributed_usd",
            "st.net_attributed_usd",
            "st.carried_in_usd",
            "st.payable_usd",
            "st.state",
            "st.hold_reason",
            "st.recipient_flags",
          ])
          .orderBy(sql.ref(STATEMENT_SORT[params.sort]), (ob) =>
            direction(params.dir, reverse) === "asc" ? ob.asc() : ob.desc(),
          )
          .orderBy("st.recipient_player_id", direction(tieBreak(params), reverse))
          .limit(limit)
          .offset(off)
          .execute(),
    );
    return {
      rows: rows.map((r) => ({
        recipientPlayerId: Number(r.recipient_player_id),
        statementId: r.id,
        resolved: r.resolved,
        playerEmail: r.player_email,
        playerName: r.player_name,
        inSnapshot: r.in_snapshot,
        renewalCount: r.renewal_count,
        subscriptionCount: r.subscription_count,
        reversalCount: r.reversal_count,
        grossAttributedUsd: formatUsd(r.gross_attributed_usd),
        reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
        netAttributedUsd: formatUsd(r.net_attributed_usd),
        carriedInUsd: formatUsd(r.carried_in_usd),
        payableUsd: formatUsd(r.payable_usd),
        state: r.state,
        holdReason: r.hold_reason,
        recipientFlags: r.recipient_flags,
      })),
      total,
    };
  }

  let base = db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("r.snapshot_id", "=", params.snapshotId);
  if (q) {
    base = base.where((eb) =>
      eb.or([
        eb(sql`lower(r.player_email)`, "like", prefix),
        eb(sql`lower(r.player_name)`, "like", prefix),
        ...(isId ? [eb("r.recipient_player_id", "=", q)] : []),
      ]),
    );
  }
  const unavailable = sql<boolean>`exists (select 1 from snapshot_line l where l.snapshot_id = r.snapshot_id
    and l.recipient_player_id = r.recipient_player_id and l.attribution_unavailable_reason is not null)`;
  if (params.state) base = base.where(sql<boolean>`false`);
  if (params.filter === "flagged")
    base = base.where((eb) => eb.or([eb("r.resolved", "=", false), eb(unavailable, "=", true)]));
  if (params.filter === "unresolved") base = base.where("r.resolved", "=", false);
  if (params.filter === "negative") base = base.where("r.net_attributed_usd", "<", "0");
  if (params.filter === "reversals") base = base.where("r.reversal_count", ">", 0);
  if (params.filter === "carried_in") base = base.where(sql<boolean>`false`);
  const { rows, total } = await fetchPage(
    params,
    offset,
    () => base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirst(),
    (reverse, off, limit) =>
      base
        .select([
          "r.recipient_player_id",
          "r.resolved",
          "r.player_email",
          "r.player_name",
          "r.renewal_count",
          "r.subscription_count",
          "r.reversal_count",
          "r.gross_attributed_usd",
          "r.reversed_attributed_usd",
          "r.net_attributed_usd",
        ])
        .select(unavailable.as("has_unavailable"))
        .orderBy(sql.ref(SNAPSHOT_SORT[params.sort]), (ob) =>
          direction(params.dir, reverse) === "asc" ? ob.asc() : ob.desc(),
        )
        .orderBy("r.recipient_player_id", direction(tieBreak(params), reverse))
        .limit(limit)
        .offset(off)
        .execute(),
  );
  return {
    rows: rows.map((r) => ({
      recipientPlayerId: Number(r.recipient_player_id),
      statementId: null,
      resolved: r.resolved,
      playerEmail: r.player_email,
      playerName: r.player_name,
      inSnapshot: true,
      renewalCount: r.renewal_count,
      subscriptionCount: r.subscription_count,
      reversalCount: r.reversal_count,
      grossAttributedUsd: formatUsd(r.gross_attributed_usd),
      reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
      netAttributedUsd: formatUsd(r.net_attributed_usd),
      carriedInUsd: null,
      payableUsd: null,
      state: null,
      holdReason: null,
      recipientFlags: [
        ...(r.resolved ? [] : ["unresolved_recipient"]),
        ...(r.has_unavailable ? ["attribution_unavailable"] : []),
      ],
    })),
    total,
  };
}

export type BatchCounts = {
  byState: Record<PayoutStatementState, { count: number; payableUsd: string }>;
  total: number;
  payableUsd: string;
  flagged: number;
};

/** Statement counts and payable totals of a batch, per state. */
export async function summarizeBatch(db: Db, params: { gameId: string; batchId: string }): Promise<BatchCounts> {
  const rows = await db
    .selectFrom("payout_statement")
    .select(["state"])
    .select((eb) => [
      eb.fn.countAll<string>().as("n"),
      sql<string>`coalesce(sum(payable_usd), 0)::text`.as("payable"),
      sql<string>`count(*) filter (where jsonb_array_length(recipient_flags) > 0)`.as("flagged"),
    ])
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId)
    .groupBy("state")
    .execute();
  const byState = Object.fromEntries(
    STATEMENT_STATES.map((s) => [s, { count: 0, payableUsd: "0.00" }]),
  ) as BatchCounts["byState"];
  let total = 0;
  let payable = money("0");
  let flagged = 0;
  for (const r of rows) {
    byState[r.state] = { count: Number(r.n), payableUsd: formatUsd(r.payable) };
    total += Number(r.n);
    payable = payable.plus(r.payable);
    flagged += Number(r.flagged);
  }
  return { byState, total, payableUsd: formatUsd(payable), flagged };
}

/** The statement of one recipient in a batch, if any. */
export async function findStatementId(
  db: Db,
  params: { gameId: string; batchId: string; recipientPlayerId: number },
): Promise<string | null> {
  const row = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The live (not discarded) batch of each window, for the overview. */
export async function listLiveBatchesByWindow(
  db: Db,
  gameId: string,
): Promise<Map<string, { id: string; status: string; snapshotId: string }>> {
  const rows = await db
    .selectFrom("payout_batch")
    .select(["id", "status", "window_start", "window_end", "snapshot_id"])
    .where("game_id", "=", gameId)
    .where("status", "<>", "discarded")
    .execute();
  return new Map(
    rows.map((r) => [
      `${r.window_start.getTime()}|${r.window_end.getTime()}`,
      { id: r.id, status: r.status, snapshotId: r.snapshot_id },
    ]),
  );
}

/** Top recipients by net attributed over the latest snapshot version of each given window. */
export async function listTopRecipients(
  db: Db,
  params: { gameId: string; windows: TimeWindow[]; limit?: number },
): Promise<
  {
    recipientPlayerId: number;
    playerName: string | null;
    playerEmail: string | null;
    netAttributedUsd: string;
    grossAttributedUsd: string;
    reversedAttributedUsd: string;
  }[]
> {
  if (params.windows.length === 0) return [];
  const latest = db
    .selectFrom("snapshot as s")
    .select("s.id")
    .where("s.game_id", "=", params.gameId)
    .where((eb) =>
      eb.or(
        params.windows.map((w) =>
          eb.and([eb("s.window_start", "=", new Date(w.startMs)), eb("s.window_end", "=", new Date(w.endMs))]),
        ),
      ),
    )
    .where(isLatestVersion("s"));
  const rows = await db
    .selectFrom("snapshot_recipient as r")
    .select([
      "r.recipient_player_id",
      sql<string | null>`max(r.player_name)`.as("name"),
      sql<string | null>`max(r.player_email)`.as("email"),
      sql<string>`sum(r.net_attributed_usd)::text`.as("net"),
      sql<string>`sum(r.gross_attributed_usd)::text`.as("gross"),
      sql<string>`sum(r.reversed_attributed_usd)::text`.as("reversed"),
    ])
    .where("r.snapshot_id", "in", latest)
    .groupBy("r.recipient_player_id")
    .orderBy(sql`sum(r.net_attributed_usd)`, "desc")
    .orderBy("r.recipient_player_id")
    .limit(params.limit ?? 10)
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.name,
    playerEmail: r.email,
    netAttributedUsd: formatUsd(r.net),
    grossAttributedUsd: formatUsd(r.gross),
    reversedAttributedUsd: formatUsd(r.reversed),
  }));
}

export type RecipientWindowRow = {
  window: TimeWindow;
  snapshotId: string;
  snapshotVersion: number;
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  netAttributedUsd: string;
  renewalCount: number;
  playerName: string | null;
  playerEmail: string | null;
  resolved: boolean;
};

/** A recipient's figures in the latest snapshot version of every window, newest window first. */
export async function listRecipientWindows(
  db: Db,
  params: { gameId: string; recipientPlayerId: number },
): Promise<RecipientWindowRow[]> {
  const rows = await db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      "s.id",
      "s.version",
      "s.window_start",
      "s.window_end",
      "r.gross_attributed_usd",
      "r.reversed_attributed_usd",
      "r.net_attributed_usd",
      "r.renewal_count",
      "r.player_name",
      "r.player_email",
      "r.resolved",
    ])
    .where("s.game_id", "=", params.gameId)
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .where(isLatestVersion("s"))
    .orderBy("s.window_start", "desc")
    .limit(200)
    .execute();
  return rows.map((r) => ({
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
    snapshotId: r.id,
    snapshotVersion: r.version,
    grossAttributedUsd: formatUsd(r.gross_attributed_usd),
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    netAttributedUsd: formatUsd(r.net_attributed_usd),
    renewalCount: r.renewal_count,
    playerName: r.player_name,
    playerEmail: r.player_email,
    resolved: r.resolved,
  }));
}

export type StatementEventRow = {
  at: Date;
  kind: string;
  stateAfter: string;
  actorEmail: string | null;
  detail: Record<string, unknown>;
  batchId: string;
};

export async function listStatementEvents(
  db: Db,
  params: { gameId: string; recipientPlayerId: number; limit?: number },
): Promise<StatementEventRow[]> {
  const rows = await db
    .selectFrom("payout_statement_event")
    .select(["at", "kind", "state_after", "actor_email", "detail", "batch_id"])
    .where("game_id", "=", params.gameId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(params.limit ?? 200)
    .execute();
  return rows.map((r) => ({
    at: r.at,
    kind: r.kind,
    stateAfter: r.state_after,
    actorEmail: r.actor_email,
    detail: r.detail,
    batchId: r.batch_id,
  }));
}

/** Recipients known to the game's snapshots or statements: prefix search on name or email, or the exact id. */
export async function searchRecipients(
  db: Db,
  params: { gameId: string; q: string; limit?: number },
): Promise<{ recipientPlayerId: number; playerName: string | null; playerEmail: string | null }[]> {
  const q = params.q.trim().toLowerCase();
  const prefix = `${escapeLike(q)}%`;
  let query = db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      "r.recipient_player_id",
      sql<string | null>`max(r.player_name)`.as("name"),
      sql<string | null>`max(r.player_email)`.as("email"),
    ])
    .where("s.game_id", "=", params.gameId);
  if (q) {
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(r.player_email)`, "like", prefix),
        eb(sql`lower(r.player_name)`, "like", prefix),
        ...(/^\d{1,15}$/.test(q) ? [eb("r.recipient_player_id", "=", q)] : []),
      ]),
    );
  }
  const rows = await query
    .groupBy("r.recipient_player_id")
    .orderBy("r.recipient_player_id")
    .limit(params.limit ?? 50)
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.name,
    playerEmail: r.email,
  }));
}

export function formatAsOf(date: Date): string {
  return formatInstant(date);
}

/** The live (not discarded) batch of exactly this window, if any. */
export async function getLiveBatchId(db: Db, params: { gameId: string; window: TimeWindow }): Promise<string | null> {
  const row = await db
    .selectFrom("payout_batch")
    .select("id")
    .where("game_id", "=", params.gameId)
    .where("window_start", "=", new Date(params.window.startMs))
    .where("window_end", "=", new Date(params.window.endMs))
    .where("status", "<>", "discarded")
    .executeTakeFirst();
  return row?.id ?? null;
}

// --- Evidence ------------------------------------------------------------------------------------------------------------

export type EvidenceLine = {
  periodId: number;
  subscriptionId: string;
  periodSeq: number;
  itemName: string;
  status: string;
  paidAt: Date | null;
  amountUsd: string;
  baseUsd: string | null;
  percentAtRenewal: string | null;
  attributedAmountUsd: string | null;
  attributionUnavailableReason: string | null;
  reconciliation: {
    checked?: boolean;
    expected_base_usd?: string;
    recorded_base_usd?: string;
    base_matches_settled_fee?: boolean;
  } | null;
};

/** A recipient's renewal lines in a snapshot, in settlement order, with reconciliation and attribution reasons. */
export async function listEvidenceLines(
  db: Db,
  params: {
    gameId: string;
    snapshotId: string;
    recipientPlayerId: number;
    page: number;
    pageSize: number;
    mismatchesOnly?: boolean;
  },
): Promise<{ rows: EvidenceLine[]; total: number; mismatches: number; unavailable: number }> {
  const base = db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("l.snapshot_id", "=", params.snapshotId)
    .where("l.recipient_player_id", "=", String(params.recipientPlayerId));
  const mismatch = sql<boolean>`coalesce((l.reconciliation->>'base_matches_settled_fee')::boolean, true) = false`;
  const filtered = params.mismatchesOnly ? base.where(mismatch) : base;
  const [rows, counts] = await Promise.all([
    filtered
      .select([
        "l.period_id",
        "l.subscription_id",
        "l.period_seq",
        "l.item_name",
        "l.status",
        "l.paid_at",
        "l.amount_usd",
        "l.base_usd",
        "l.percent_at_renewal",
        "l.attributed_amount_usd",
        "l.attribution_unavailable_reason",
        "l.reconciliation",
      ])
      .orderBy("l.paid_at")
      .orderBy("l.period_id")
      .limit(params.pageSize)
      .offset((params.page - 1) * params.pageSize)
      .execute(),
    base
      .select([
        sql<string>`count(*)`.as("n"),
        sql<string>`count(*) filter (where ${mismatch})`.as("mismatches"),
        sql<string>`count(*) filter (where l.attribution_unavailable_reason is not null)`.as("unavailable"),
      ])
      .executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      periodId: Number(r.period_id),
      subscriptionId: r.subscription_id,
      periodSeq: r.period_seq,
      itemName: r.item_name,
      status: r.status,
      paidAt: r.paid_at,
      amountUsd: formatUsd(r.amount_usd),
      baseUsd: r.base_usd === null ? null : formatUsd(r.base_usd),
      percentAtRenewal: r.percent_at_renewal,
      attributedAmountUsd: r.attributed_amount_usd === null ? null : formatUsd(r.attributed_amount_usd),
      attributionUnavailableReason: r.attribution_unavailable_reason,
      reconciliation: (r.reconciliation as EvidenceLine["reconciliation"]) ?? null,
    })),
    total: Number(counts?.n ?? 0),
    mismatches: Number(counts?.mismatches ?? 0),
    unavailable: Number(counts?.unavailable ?? 0),
  };
}

/** Where each balance carried into a statement came from. */
export async function listCarrySources(
  db: Db,
  params: { gameId: string; statementId: string },
): Promise<{ fromStatementId: string; amountUsd: string; windowStart: Date; windowEnd: Date }[]> {
  const rows = await db
    .selectFrom("payout_carry as c")
    .innerJoin("payout_statement as f", "f.id", "c.from_statement_id")
    .innerJoin("payout_batch as b", "b.id", "f.batch_id")
    .select(["c.from_statement_id", "c.amount_usd", "b.window_start", "b.window_end"])
    .where("f.game_id", "=", params.gameId)
    .where("c.to_statement_id", "=", params.statementId)
    .orderBy("b.window_start")
    .execute();
  return rows.map((r) => ({
    fromStatementId: r.from_statement_id,
    amountUsd: formatUsd(r.amount_usd),
    windowStart: r.window_start,
    windowEnd: r.window_end,
  }));
}

/** A recipient as a snapshot reported them (name, email, resolved), for pages shown before any statement exists. */
export async function getSnapshotRecipient(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId: number },
): Promise<{ playerName: string | null; playerEmail: string | null; resolved: boolean } | null> {
  const row = await db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select(["r.player_name", "r.player_email", "r.resolved"])
    .where("s.game_id", "=", params.gameId)
    .where("r.snapshot_id", "=", params.snapshotId)
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row ? { playerName: row.player_name, playerEmail: row.player_email, resolved: row.resolved } : null;
}
