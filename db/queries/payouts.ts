import "server-only";
import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "@/db";
import type { PayoutStatementState } from "@/db/types";
import { formatUsd, netInCents } from "@/core/money";
import { formatInstant } from "@/core/time";
import { statementsOfBatch } from "./batch-statements";
import { type BatchCounts, countTallied } from "./batch-tally";
import { matchesRecipient } from "./payout-recipients";
import { firstValue } from "./scalar";
import { snapshotNetInCents } from "./snapshot-columns";
import { snapshotRecipientsOfGame } from "./snapshot-recipients";

/**
 * Reads for the payout pages: the recipient payout table of a window (sorted, filtered and paginated in SQL), top
 * recipients over months and a recipient's history (the liability is in liability.ts). Every query filters by game.
 */

/** A snapshot recipient's figures (snapshot_recipient as r), as a statement is built from them. */
export const RECIPIENT_FIGURES = [
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
] as const;

/** Whether any line of the recipient (snapshot_recipient as r) lacks attribution. */
export const RECIPIENT_HAS_UNAVAILABLE = sql<boolean>`exists (select 1 from snapshot_line l
  where l.snapshot_id = r.snapshot_id and l.recipient_player_id = r.recipient_player_id
  and l.attribution_unavailable_reason is not null)`;

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
  /** Returned as its payment was recorded by mistake and undone (the money never left), not as it came back. */
  undone: boolean;
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
  /**
   * With the "flagged" filter and a batch: recipients flagged besides the flags stored on their statements (their
   * disputes and payout profiles, worked out when the page is asked for).
   */
  flaggedElsewhere?: readonly number[];
  state?: PayoutStatementState;
  page: number;
  pageSize: number;
  /** The batch's tally (summarizeBatch), when the caller reads it anyway: the count without a search or filter. */
  tally?: Promise<BatchCounts | null>;
};

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

/** The filters a statement and a snapshot recipient answer alike (the table aliased `alias`). */
function sharedFilter(alias: "st" | "r", filter: PayoutTableFilter | undefined): RawBuilder<SqlBool> | null {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  if (filter === "unresolved") return sql<SqlBool>`${column("resolved")} = false`;
  if (filter === "negative")
    return alias === "st"
      ? sql<SqlBool>`${column("net_attributed_usd")} < 0`
      : sql<SqlBool>`${snapshotNetInCents(alias)} < 0`;
  if (filter === "reversals") return sql<SqlBool>`${column("reversal_count")} > 0`;
  return null;
}

/** Reads a page in the sort column's order, ties broken on the player id so pages never overlap. */
function readPage<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  sortColumn: string,
  tieColumn: string,
  page: Pick<PayoutTableQuery, "sort" | "dir"> & { reverse: boolean; off: number; limit: number },
) {
  return qb
    .orderBy(sql.ref(sortColumn), (ob) => (direction(page.dir, page.reverse) === "asc" ? ob.asc() : ob.desc()))
    .orderBy(sql.ref(tieColumn), direction(tieBreak(page), page.reverse))
    .limit(page.limit)
    .offset(page.off)
    .execute();
}

type FigureRow = {
  recipient_player_id: string;
  resolved: boolean;
  player_email: string | null;
  player_name: string | null;
  renewal_count: number;
  subscription_count: number;
  reversal_count: number;
  gross_attributed_usd: string;
  reversed_attributed_usd: string;
  net_attributed_usd: string;
};

/** The columns a statement and a snapshot recipient share, as the table shows them. */
function recipientFiguresOf(r: FigureRow) {
  return {
    recipientPlayerId: Number(r.recipient_player_id),
    resolved: r.resolved,
    playerEmail: r.player_email,
    playerName: r.player_name,
    renewalCount: r.renewal_count,
    subscriptionCount: r.subscription_count,
    reversalCount: r.reversal_count,
    grossAttributedUsd: formatUsd(r.gross_attributed_usd),
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    // In cents as its statement will take it: gross and reversed in cents, then their difference (a statement leaves
    // out too the part of a reversal reported again that another window's approved batch deducted).
    netAttributedUsd: formatUsd(netInCents(r.gross_attributed_usd, r.reversed_attributed_usd)),
  };
}

/** Past this many rows, a page is read from the far end of the order (OFFSET reads and drops every skipped row). */
const DEEP_OFFSET = 5_000;

/**
 * Reads one page of the base query and its total. A page in the second half of a large result is read in the
 * reverse order with the small offset from the end, then turned back around: the last page costs what the first does.
 */
async function fetchPage<DB, TB extends keyof DB, O, R>(
  params: Pick<PayoutTableQuery, "page" | "pageSize">,
  base: SelectQueryBuilder<DB, TB, O>,
  page: (reverse: boolean, offset: number, limit: number) => Promise<R[]>,
  counted?: () => Promise<number>,
): Promise<{ rows: R[]; total: number }> {
  const offset = (params.page - 1) * params.pageSize;
  const count =
    counted ??
    (async () => {
      const row = await base
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .$castTo<{ n: string }>()
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    });
  if (offset < DEEP_OFFSET) {
    const [rows, total] = await Promise.all([page(false, offset, params.pageSize), count()]);
    return { rows, total };
  }
  const total = await count();
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

  if (params.batchId) {
    let base = statementsOfBatch(db, { gameId: params.gameId, batchId: params.batchId });
    if (q) base = base.where(matchesRecipient("st", q));
    if (params.state) base = base.where("st.state", "=", params.state);
    if (params.filter === "flagged") {
      const elsewhere = (params.flaggedElsewhere ?? []).map(String);
      base = base.where(
        elsewhere.length > 0
          ? sql<boolean>`(jsonb_array_length(st.recipient_flags) > 0
              or st.recipient_player_id = any(${elsewhere}::bigint[]))`
          : sql<boolean>`jsonb_array_length(st.recipient_flags) > 0`,
      );
    }
    const shared = sharedFilter("st", params.filter);
    if (shared) base = base.where(shared);
    if (params.filter === "carried_in") base = base.where("st.carried_in_usd", "<>", "0");
    // Without a search or a filter, the batch's tally has the count (all statements, or those in one state).
    const batch = { gameId: params.gameId, batchId: params.batchId };
    const tallied =
      q || params.filter
        ? undefined
        : async () => {
            const counts = await params.tally;
            if (!counts) return countTallied(db, batch, params.state);
            return params.state ? counts.byState[params.state].count : counts.total;
          };
    const { rows, total } = await fetchPage(
      params,
      base,
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
            // Read for a returned statement only: its latest return, undone or not.
            sql<boolean>`case when st.state = 'returned' then coalesce((select r.undone from payment_return r
              where r.statement_id = st.id order by r.at desc, r.id desc limit 1), false) else false end`.as("undone"),
          ])
          .$call((qb) =>
            readPage(qb, STATEMENT_SORT[params.sort], "st.recipient_player_id", { ...params, reverse, off, limit }),
          ),
      tallied,
    );
    return {
      rows: rows.map((r) => ({
        ...recipientFiguresOf(r),
        statementId: r.id,
        inSnapshot: r.in_snapshot,
        carriedInUsd: formatUsd(r.carried_in_usd),
        payableUsd: formatUsd(r.payable_usd),
        state: r.state,
        undone: r.undone,
        holdReason: r.hold_reason,
        recipientFlags: r.recipient_flags,
      })),
      total,
    };
  }

  let base = snapshotRecipientsOfGame(db, params.gameId).where("r.snapshot_id", "=", params.snapshotId);
  if (q) base = base.where(matchesRecipient("r", q));
  const unavailable = RECIPIENT_HAS_UNAVAILABLE;
  if (params.state) base = base.where(sql<boolean>`false`);
  if (params.filter === "flagged")
    base = base.where((eb) => eb.or([eb("r.resolved", "=", false), eb(unavailable, "=", true)]));
  const shared = sharedFilter("r", params.filter);
  if (shared) base = base.where(shared);
  if (params.filter === "carried_in") base = base.where(sql<boolean>`false`);
  const { rows, total } = await fetchPage(params, base, (reverse, off, limit) =>
    base
      .select(RECIPIENT_FIGURES)
      .select(unavailable.as("has_unavailable"))
      .$call((qb) =>
        readPage(qb, SNAPSHOT_SORT[params.sort], "r.recipient_player_id", { ...params, reverse, off, limit }),
      ),
  );
  return {
    rows: rows.map((r) => ({
      ...recipientFiguresOf(r),
      statementId: null,
      inSnapshot: true,
      carriedInUsd: null,
      payableUsd: null,
      state: null,
      undone: false,
      holdReason: null,
      recipientFlags: [
        ...(r.resolved ? [] : ["unresolved_recipient"]),
        ...(r.has_unavailable ? ["attribution_unavailable"] : []),
      ],
    })),
    total,
  };
}

/** The statement of one recipient in a batch, if any. */
export async function findStatementId(db: Db, params: { gameId: string; batchId: string; recipientPlayerId: number }) {
  return firstValue(
    db
      .selectFrom("payout_statement")
      .select("id")
      .where("game_id", "=", params.gameId)
      .where("batch_id", "=", params.batchId)
      .where("recipient_player_id", "=", String(params.recipientPlayerId)),
    "id",
  );
}

export function formatAsOf(date: Date): string {
  return formatInstant(date);
}

export { listLiveBatchesByWindow } from "./payout-batches";
export * from "./payout-recipients";
export { type BatchCounts, countPaymentStates, STATEMENT_STATES, summarizeBatch } from "./batch-tally";
