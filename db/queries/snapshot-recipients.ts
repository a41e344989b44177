import "server-only";
import { type Selectable, sql } from "kysely";
import type { Db } from "@/db";
import type { SnapshotLineTable, SnapshotRecipientTable } from "@/db/types";
import { camelRow } from "./camel-row";
import { foldedPrefixes } from "./like";
import { countRows, pageOf } from "./paging";
import { SNAPSHOT_RECIPIENT_COLUMN_NAMES, type SnapshotRecipientColumn } from "./snapshot-columns";

/** A snapshot's recipients and their renewal lines, page by page. Every query filters by the game. */

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

/** The recipients (as `r`) of the game's snapshots (as `s`), before any select. */
export function snapshotRecipientsOfGame(db: Db, gameId: string) {
  return db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .where("s.game_id", "=", gameId);
}

function toRecipientRow(r: Pick<Selectable<SnapshotRecipientTable>, SnapshotRecipientColumn>) {
  return { ...camelRow(r), recipientPlayerId: Number(r.recipient_player_id) };
}

export type RecipientPayoutRow = ReturnType<typeof toRecipientRow>;

export type RecipientPayoutQuery = {
  gameId: string;
  snapshotId: string;
  sort?: RecipientSort;
  dir?: "asc" | "desc";
  /** Prefix of the email or name, or a recipient id. */
  q?: string;
  /**
   * "unresolved": recipients the service could not resolve; "reversals": with reversals in the window; "negative":
   * net below zero.
   */
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
  const { page, pageSize, offset } = pageOf(params, { size: 50, max: 500 });
  let base = snapshotRecipientsOfGame(db, params.gameId).where("r.snapshot_id", "=", params.snapshotId);
  const q = params.q?.trim().toLowerCase();
  if (q) {
    const prefixes = foldedPrefixes(q);
    base = base.where((eb) =>
      eb.or([
        ...prefixes.map((prefix) => eb(sql`lower(r.player_email)`, "like", prefix)),
        ...prefixes.map((prefix) => eb(sql`lower(r.player_name)`, "like", prefix)),
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
      .select(SNAPSHOT_RECIPIENT_COLUMN_NAMES.map((column) => `r.${column}` as const))
      .orderBy(sql.ref(sort), (ob) => (dir === "asc" ? ob.asc() : ob.desc()).nullsLast())
      .orderBy("r.recipient_player_id", "asc")
      .limit(pageSize)
      .offset(offset)
      .execute(),
    countRows(base),
  ]);
  return {
    rows: rows.map(toRecipientRow),
    total: count,
    page,
    pageSize,
  };
}

function toLineRow(r: Pick<Selectable<SnapshotLineTable>, LineColumn>) {
  return { ...camelRow(r), periodId: Number(r.period_id) };
}

export type SnapshotLineRow = ReturnType<typeof toLineRow>;

const LINE_COLUMNS = [
  "period_id",
  "subscription_id",
  "period_seq",
  "item_id",
  "item_name",
  "status",
  "period_start",
  "period_end",
  "paid_at",
  "amount_usd",
  "invo_fee_usd",
  "partner_revenue_settled_usd",
  "percent_at_renewal",
  "base_usd",
  "attributed_amount_usd",
  "transaction_id",
] as const;
type LineColumn = (typeof LINE_COLUMNS)[number];

/** One recipient in one snapshot of the game: what a statement and the evidence pages are about. */
export type RecipientInSnapshot = { gameId: string; snapshotId: string; recipientPlayerId: number };

/** The renewal lines (as `l`) of one recipient in one snapshot of the game, before any select. */
export function recipientLinesQuery(db: Db, params: RecipientInSnapshot) {
  return db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("l.snapshot_id", "=", params.snapshotId)
    .where("l.recipient_player_id", "=", String(params.recipientPlayerId));
}

/** A recipient's renewal lines in a snapshot, in settlement order. */
export async function listRecipientLines(
  db: Db,
  params: RecipientInSnapshot & { page?: number; pageSize?: number },
): Promise<{ rows: SnapshotLineRow[]; total: number }> {
  const { pageSize, offset } = pageOf(params, { size: 100, max: 1000 });
  const base = recipientLinesQuery(db, params);
  // Counted while the page is read (a failure is seen where it is awaited, not as an unhandled rejection).
  const counted = countRows(base);
  counted.catch(() => {});
  const rows = await base
    .select(LINE_COLUMNS.map((column) => `l.${column}` as const))
    .orderBy("l.paid_at")
    .orderBy("l.period_id")
    .limit(pageSize)
    .offset(offset)
    .execute();
  const count = await counted;
  return {
    rows: rows.map(toLineRow),
    total: count,
  };
}
