import "server-only";
import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "@/db";
import { exactAmount, formatUsd, money, netInCents } from "@/core/money";
import type { TimeWindow } from "@/core/time";
import { carriesOfGame } from "./carries";
import { foldedPrefixes } from "./like";
import type { RowOf } from "./row-of";
import { snapshotNetInCents } from "./snapshot-columns";
import { statementNetOfSnapshotRecipient } from "./reversal-deducted";
import { recipientLinesQuery, snapshotRecipientsOfGame } from "./snapshot-recipients";
import { isLatestVersion } from "./snapshots";
import { windowOf } from "./time-window";

/**
 * A recipient of the table aliased `alias` whose email or name starts with `q` (lower case, letters outside ASCII in
 * either case: `foldedPrefixes`), or whose id is `q`.
 */
export function matchesRecipient(alias: "r" | "st", q: string): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const startsWith = (name: string) =>
    foldedPrefixes(q).map((prefix) => sql<SqlBool>`lower(${column(name)}) like ${prefix}`);
  const byText = sql.join([...startsWith("player_email"), ...startsWith("player_name")], sql` or `);
  return /^\d{1,15}$/.test(q)
    ? sql<SqlBool>`(${byText} or ${column("recipient_player_id")} = ${q})`
    : sql<SqlBool>`(${byText})`;
}

/** Reads of the recipient pages: top recipients, a recipient's windows, events and evidence, and recipient search. */

/**
 * A recipient's name and email over grouped snapshot_recipient rows `r` of snapshots `s` (one id, several windows):
 * as the newest window reports them (a name or address changed since an earlier month is shown as it is now).
 */
const RECIPIENT_NAMES = [
  sql<string | null>`(array_agg(r.player_name order by s.window_end desc, s.version desc)
    filter (where r.player_name is not null))[1]`.as("playerName"),
  sql<string | null>`(array_agg(r.player_email order by s.window_end desc, s.version desc)
    filter (where r.player_email is not null))[1]`.as("playerEmail"),
] as const;

/** A grouped recipient row with its id as a number, first. */
function withRecipientId<R extends { recipient_player_id: string }>({ recipient_player_id, ...rest }: R) {
  return { recipientPlayerId: Number(recipient_player_id), ...rest };
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
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      "r.recipient_player_id",
      ...RECIPIENT_NAMES,
      // Each window's figures in cents, rounded as its statement rounds them, then added up.
      sql<string>`sum(${snapshotNetInCents("r")})::text`.as("net"),
      sql<string>`sum(round(r.gross_attributed_usd, 2))::text`.as("gross"),
      sql<string>`sum(round(r.reversed_attributed_usd, 2))::text`.as("reversed"),
    ])
    .where("r.snapshot_id", "in", latest)
    .groupBy("r.recipient_player_id")
    .orderBy(sql`sum(${snapshotNetInCents("r")})`, "desc")
    .orderBy("r.recipient_player_id")
    .limit(params.limit ?? 10)
    .execute();
  return rows.map(({ net, gross, reversed, ...recipient }) => ({
    ...withRecipientId(recipient),
    netAttributedUsd: formatUsd(net),
    grossAttributedUsd: formatUsd(gross),
    reversedAttributedUsd: formatUsd(reversed),
  }));
}

/** A recipient's figures in the latest snapshot version of every window, newest window first. */
export async function listRecipientWindows(db: Db, params: { gameId: string; recipientPlayerId: number }) {
  const rows = await snapshotRecipientsOfGame(db, params.gameId)
    .select([
      "s.window_start",
      "s.window_end",
      "s.id as snapshotId",
      "s.version as snapshotVersion",
      "r.gross_attributed_usd as grossAttributedUsd",
      "r.reversed_attributed_usd as reversedAttributedUsd",
      "r.net_attributed_usd as netAttributedUsd",
      // Only for a window with no batch (none discarded aside): a batch's statement has its own figures.
      sql<string | null>`case when exists (select 1 from payout_batch b where b.game_id = s.game_id
        and b.window_start = s.window_start and b.window_end = s.window_end and b.status <> 'discarded')
        then null else ${statementNetOfSnapshotRecipient(null)} end`.as("owedUsd"),
      "r.renewal_count as renewalCount",
      "r.player_name as playerName",
      "r.player_email as playerEmail",
      "r.resolved",
    ])
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .where(isLatestVersion("s"))
    .orderBy("s.window_start", "desc")
    .limit(200)
    .execute();
  return rows.map(({ window_start, window_end, ...r }) => ({
    window: windowOf({ window_start, window_end }),
    ...r,
    grossAttributedUsd: formatUsd(r.grossAttributedUsd),
    reversedAttributedUsd: formatUsd(r.reversedAttributedUsd),
    netAttributedUsd: formatUsd(netInCents(r.grossAttributedUsd, r.reversedAttributedUsd)),
    owed: owedOf(r),
  }));
}

export type RecipientWindowRow = RowOf<typeof listRecipientWindows>;

/**
 * A window without a batch: what its statement will owe (the net as a statement prepared now takes it) and the part of
 * that beside the snapshot's net, what another window's approved batch deducted already of a reversal reported again.
 * Null for a window with a batch.
 */
function owedOf(r: { owedUsd: string | null; grossAttributedUsd: string; reversedAttributedUsd: string }) {
  if (r.owedUsd === null) return null;
  const net = netInCents(r.grossAttributedUsd, r.reversedAttributedUsd);
  return { usd: formatUsd(r.owedUsd), deductedBeforeUsd: formatUsd(money(r.owedUsd).minus(net)) };
}

export async function listStatementEvents(
  db: Db,
  params: { gameId: string; recipientPlayerId: number; limit?: number },
) {
  return db
    .selectFrom("payout_statement_event")
    .select(["at", "kind", "state_after as stateAfter", "actor_email as actorEmail", "detail", "batch_id as batchId"])
    .where("game_id", "=", params.gameId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(params.limit ?? 200)
    .execute();
}

export type StatementEventRow = RowOf<typeof listStatementEvents>;

export type RecipientSearchRow = { recipientPlayerId: number; playerName: string | null; playerEmail: string | null };

/**
 * Recipients known to the game's snapshots: prefix search on name or email, or the exact id; a page at a time by
 * player id, after or before the id of a row already shown (a game may have a hundred thousand: nothing is counted).
 */
export async function searchRecipients(
  db: Db,
  params: { gameId: string; q: string; limit?: number; after?: number; before?: number },
): Promise<{ rows: RecipientSearchRow[]; hasPrevious: boolean; hasNext: boolean }> {
  const q = params.q.trim().toLowerCase();
  const limit = params.limit ?? 50;
  const backwards = params.after === undefined && params.before !== undefined;
  // The page's ids first (by player id, after or before the one given, matching the search), then their names from
  // all their rows: found by any name or address they had, named as the newest window reports them.
  let ids = snapshotRecipientsOfGame(db, params.gameId).select("r.recipient_player_id");
  if (q) ids = ids.where(matchesRecipient("r", q));
  if (params.after !== undefined) ids = ids.where("r.recipient_player_id", ">", String(params.after));
  else if (params.before !== undefined) ids = ids.where("r.recipient_player_id", "<", String(params.before));
  const page = ids
    .groupBy("r.recipient_player_id")
    .orderBy("r.recipient_player_id", backwards ? "desc" : "asc")
    .limit(limit + 1);
  const found = await snapshotRecipientsOfGame(db, params.gameId)
    .select(["r.recipient_player_id", ...RECIPIENT_NAMES])
    .where("r.recipient_player_id", "in", page)
    .groupBy("r.recipient_player_id")
    .orderBy("r.recipient_player_id", backwards ? "desc" : "asc")
    .execute();
  const more = found.length > limit;
  const rows = found.slice(0, limit).map(withRecipientId);
  if (backwards) rows.reverse();
  return {
    rows,
    hasPrevious: backwards ? more : params.after !== undefined,
    hasNext: backwards ? true : more,
  };
}

// --- Evidence ---------------------------------------------------------------------------------------------------

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
) {
  const base = recipientLinesQuery(db, params);
  const mismatch = sql<boolean>`coalesce((l.reconciliation->>'base_matches_settled_fee')::boolean, true) = false`;
  const filtered = params.mismatchesOnly ? base.where(mismatch) : base;
  const [rows, counts] = await Promise.all([
    filtered
      .select([
        "l.period_id as periodId",
        "l.subscription_id as subscriptionId",
        "l.period_seq as periodSeq",
        "l.item_name as itemName",
        "l.status",
        "l.paid_at as paidAt",
        "l.amount_usd as amountUsd",
        "l.base_usd as baseUsd",
        "l.percent_at_renewal as percentAtRenewal",
        "l.attributed_amount_usd as attributedAmountUsd",
        "l.attribution_unavailable_reason as attributionUnavailableReason",
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
      ...r,
      periodId: Number(r.periodId),
      amountUsd: exactAmount(r.amountUsd),
      baseUsd: r.baseUsd === null ? null : exactAmount(r.baseUsd),
      attributedAmountUsd: r.attributedAmountUsd === null ? null : exactAmount(r.attributedAmountUsd),
    })),
    total: Number(counts?.n ?? 0),
    mismatches: Number(counts?.mismatches ?? 0),
    unavailable: Number(counts?.unavailable ?? 0),
  };
}

/** Where each balance carried into a statement came from. */
export async function listCarrySources(db: Db, params: { gameId: string; statementId: string }) {
  const rows = await carriesOfGame(db, params.gameId)
    .innerJoin("payout_batch as b", "b.id", "f.batch_id")
    .leftJoin("statement_document as d", "d.statement_id", "c.from_statement_id")
    .select([
      "c.from_statement_id as fromStatementId",
      "d.number as fromNumber",
      "c.amount_usd as amountUsd",
      "b.window_start as windowStart",
      "b.window_end as windowEnd",
    ])
    .where("c.to_statement_id", "=", params.statementId)
    .orderBy("b.window_start")
    .execute();
  return rows.map((r) => ({ ...r, amountUsd: formatUsd(r.amountUsd) }));
}

/** A recipient as a snapshot reported them (name, email, resolved), for pages shown before any statement exists. */
export async function getSnapshotRecipient(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId: number },
) {
  const row = await snapshotRecipientsOfGame(db, params.gameId)
    .select(["r.player_name as playerName", "r.player_email as playerEmail", "r.resolved"])
    .where("r.snapshot_id", "=", params.snapshotId)
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row ?? null;
}
