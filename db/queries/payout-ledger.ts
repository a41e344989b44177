import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { TimeWindow } from "@/core/time";
import { carriesOfGame } from "./carries";
import { dateText } from "./profiles";
import type { PayoutStatementState } from "@/db/types";
import { anyOf } from "./chunks";

/** Reads of payout batches, statements and carry links for the ledger, the exports and the invariant check. */

function batchQuery(db: DbOrTrx, gameId: string) {
  return db.selectFrom("payout_batch").selectAll().where("game_id", "=", gameId);
}

export type PayoutBatchRow = Awaited<ReturnType<ReturnType<typeof batchQuery>["executeTakeFirstOrThrow"]>>;

export async function getPayoutBatchRow(db: DbOrTrx, params: { gameId: string; batchId: string }) {
  return batchQuery(db, params.gameId).where("id", "=", params.batchId).executeTakeFirst();
}

/** The live (not discarded) batch of exactly this window, if any. */
export async function getLiveBatchRow(db: DbOrTrx, params: { gameId: string; window: TimeWindow }) {
  return batchQuery(db, params.gameId)
    .where("window_start", "=", new Date(params.window.startMs))
    .where("window_end", "=", new Date(params.window.endMs))
    .where("status", "<>", "discarded")
    .executeTakeFirst();
}

/** Batches of a game, newest window first; discarded ones only when asked. */
export async function listPayoutBatchRows(
  db: DbOrTrx,
  params: { gameId: string; snapshotId?: string; includeDiscarded?: boolean },
): Promise<PayoutBatchRow[]> {
  let query = batchQuery(db, params.gameId);
  if (params.snapshotId) query = query.where("snapshot_id", "=", params.snapshotId);
  if (!params.includeDiscarded) query = query.where("status", "<>", "discarded");
  return query.orderBy("window_start", "desc").orderBy("prepared_at", "desc").execute();
}

/** The game's statements (as `st`) joined to their batch (as `b`), before any select. */
function statementsWithBatch(db: DbOrTrx, gameId: string) {
  return db
    .selectFrom("payout_statement as st")
    .innerJoin("payout_batch as b", "b.id", "st.batch_id")
    .where("st.game_id", "=", gameId)
    .where("b.game_id", "=", gameId);
}

function statementQuery(db: DbOrTrx, gameId: string) {
  return statementsWithBatch(db, gameId)
    .selectAll("st")
    .select([
      "b.status as batch_status",
      "b.snapshot_id",
      "b.snapshot_version",
      "b.window_start",
      "b.window_end",
      "b.min_payout_usd",
      "b.approved_at as batch_approved_at",
      dateText("st.paid_on", "paid_on_day"),
    ]);
}

export type PayoutStatementRow = Awaited<ReturnType<ReturnType<typeof statementQuery>["executeTakeFirstOrThrow"]>>;

export type StatementPageKey = { windowStart: Date; batchId: string; recipient: string };

/** One page of statements in (window start, batch, recipient) order, after `after`. */
export async function listPayoutStatementPage(
  db: DbOrTrx,
  params: {
    gameId: string;
    batchId?: string;
    recipientPlayerId?: number;
    state?: PayoutStatementState;
    after: StatementPageKey | null;
    limit: number;
  },
): Promise<PayoutStatementRow[]> {
  let query = statementQuery(db, params.gameId);
  if (params.batchId) query = query.where("st.batch_id", "=", params.batchId);
  if (params.state) query = query.where("st.state", "=", params.state);
  if (params.recipientPlayerId !== undefined)
    query = query.where("st.recipient_player_id", "=", String(params.recipientPlayerId));
  const a = params.after;
  if (params.batchId) {
    // One batch: window and batch are the same on every row, so the key is the recipient alone, read in order from
    // an index; the three-column key made each page scan and sort the whole batch (45 ms against 1 ms a page at
    // 100,000 statements).
    if (a) query = query.where("st.recipient_player_id", ">", a.recipient);
    return query.orderBy("st.recipient_player_id").limit(params.limit).execute();
  }
  if (a) {
    query = query.where((eb) =>
      eb.or([
        eb("b.window_start", ">", a.windowStart),
        eb.and([eb("b.window_start", "=", a.windowStart), eb("st.batch_id", ">", a.batchId)]),
        eb.and([
          eb("b.window_start", "=", a.windowStart),
          eb("st.batch_id", "=", a.batchId),
          eb("st.recipient_player_id", ">", a.recipient),
        ]),
      ]),
    );
  }
  return query
    .orderBy("b.window_start")
    .orderBy("st.batch_id")
    .orderBy("st.recipient_player_id")
    .limit(params.limit)
    .execute();
}

/** The carry links into or out of the statements given. */
export async function listCarryLinksOf(db: DbOrTrx, statementIds: readonly string[]) {
  if (statementIds.length === 0) return [];
  const ids = [...statementIds];
  return db
    .selectFrom("payout_carry")
    .select(["from_statement_id", "to_statement_id", "amount_usd"])
    .where((eb) =>
      eb.or([eb("to_statement_id", "=", anyOf(ids, "uuid")), eb("from_statement_id", "=", anyOf(ids, "uuid"))]),
    )
    .execute();
}

/** Approved and paid batches of a game (or the one given), with when they were approved. */
export async function listApprovedBatches(db: DbOrTrx, params: { gameId: string; batchId?: string }) {
  return db
    .selectFrom("payout_batch")
    .select(["id", "approved_at", "status"])
    .where("game_id", "=", params.gameId)
    .where("status", "in", ["approved", "paid"])
    .$if(params.batchId !== undefined, (qb) => qb.where("id", "=", params.batchId as string))
    .execute();
}

/** Closed statements of live batches with the net attributed their snapshot reported, for the invariant check. */
export async function listClosedStatementsWithSnapshotNet(
  db: DbOrTrx,
  params: { gameId: string; recipientPlayerId?: number },
) {
  let query = statementsWithBatch(db, params.gameId)
    .leftJoin("snapshot_recipient as r", (join) =>
      join.onRef("r.snapshot_id", "=", "b.snapshot_id").onRef("r.recipient_player_id", "=", "st.recipient_player_id"),
    )
    .select([
      "st.id",
      "st.recipient_player_id",
      "st.state",
      "st.in_snapshot",
      "st.net_attributed_usd",
      "st.reversed_before_usd",
      "st.carried_in_usd",
      "st.payable_usd",
      "st.carry_out_usd",
      "st.paid_amount_usd",
      "r.net_attributed_usd as snapshot_net_usd",
      "r.gross_attributed_usd as snapshot_gross_usd",
      "r.reversed_attributed_usd as snapshot_reversed_usd",
    ])
    .where("b.status", "<>", "discarded")
    .where("st.state", "in", ["paid", "carried"]);
  if (params.recipientPlayerId !== undefined)
    query = query.where("st.recipient_player_id", "=", String(params.recipientPlayerId));
  return query.execute();
}

/** Every carry link out of the game's statements (of one recipient when given). */
export async function listCarryLinksOfGame(db: DbOrTrx, params: { gameId: string; recipientPlayerId?: number }) {
  return carriesOfGame(db, params.gameId)
    .select(["c.from_statement_id", "c.to_statement_id", "c.amount_usd"])
    .$if(params.recipientPlayerId !== undefined, (qb) =>
      qb.where("f.recipient_player_id", "=", String(params.recipientPlayerId)),
    )
    .execute();
}

/**
 * Whether a statement paid, or being paid, covers the recipient attributed on the period (its renewal line): paid, in
 * a payment file, or approved (held or returned) in an approved or paid batch, whose figures are frozen and paid in
 * full. A statement that rolled its balance over is not.
 */
export async function existsPaidStatementForPeriod(
  db: DbOrTrx,
  params: { gameId: string; periodId: number },
): Promise<boolean> {
  const row = await db
    .selectFrom("snapshot_line as l")
    .innerJoin("payout_batch as b", "b.snapshot_id", "l.snapshot_id")
    .innerJoin("payout_statement as st", (join) =>
      join.onRef("st.batch_id", "=", "b.id").onRef("st.recipient_player_id", "=", "l.recipient_player_id"),
    )
    .select(sql<number>`1`.as("one"))
    .where("l.period_id", "=", String(params.periodId))
    .where("b.game_id", "=", params.gameId)
    .where("b.status", "<>", "discarded")
    .where((eb) =>
      eb.or([
        eb("st.state", "in", ["paid", "in_payment"]),
        eb.and([eb("st.state", "in", ["approved", "held", "returned"]), eb("b.status", "in", ["approved", "paid"])]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
