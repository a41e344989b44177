import "server-only";
import { sql } from "kysely";
import type { Db, DbOrTrx, Trx } from "@/db";
import { exactAmount } from "@/core/money";
import { statementsOfBatch } from "./batch-statements";
import type { RowOf } from "./row-of";
import { firstValue } from "./scalar";
import { type RecipientInSnapshot, recipientLinesQuery } from "./snapshot-recipients";

// --- Numbering --------------------------------------------------------------------------------------------------

/**
 * Gives every statement of a batch that has no number yet the next numbers of its game, by recipient id. The game's
 * counter row is locked for the rest of the transaction, so two numberings never interleave and no number is skipped.
 * Returns how many statements were numbered.
 */
export async function numberBatchStatements(trx: Trx, params: { gameId: string; batchId: string }): Promise<number> {
  await trx
    .insertInto("statement_counter")
    .values({ game_id: params.gameId, last_number: 0 })
    .onConflict((oc) => oc.column("game_id").doNothing())
    .execute();
  const counter = await trx
    .selectFrom("statement_counter")
    .select("last_number")
    .where("game_id", "=", params.gameId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const unnumbered = await statementsOfBatch(trx, params)
    .leftJoin("statement_document as d", "d.statement_id", "st.id")
    .select("st.id")
    .where("d.statement_id", "is", null)
    .orderBy("st.recipient_player_id")
    .execute();
  if (unnumbered.length === 0) return 0;
  for (let from = 0; from < unnumbered.length; from += 5_000) {
    await trx
      .insertInto("statement_document")
      .values(
        unnumbered.slice(from, from + 5_000).map((row, i) => ({
          statement_id: row.id,
          game_id: params.gameId,
          number: counter.last_number + from + i + 1,
        })),
      )
      .execute();
  }
  await trx
    .updateTable("statement_counter")
    .set({ last_number: counter.last_number + unnumbered.length })
    .where("game_id", "=", params.gameId)
    .execute();
  return unnumbered.length;
}

export type StatementIssuer = { name: string; address: string };

/**
 * Keeps the issuer a statement is first emailed under (a later send keeps the first), so that a rename of the studio
 * does not change a statement its recipient already has.
 */
export async function keepStatementIssuer(db: DbOrTrx, statementId: string, issuer: StatementIssuer): Promise<void> {
  await db
    .updateTable("statement_document")
    .set({ issuer_name: issuer.name, issuer_address: issuer.address })
    .where("statement_id", "=", statementId)
    .where("issuer_name", "is", null)
    .execute();
}

/** The issuer kept for each numbered statement of the batch (or the one statement) that has one. */
export async function listStatementIssuers(
  db: DbOrTrx,
  params: { gameId: string; batchId: string; statementId?: string },
): Promise<Map<string, StatementIssuer>> {
  let query = db
    .selectFrom("statement_document as d")
    .innerJoin("payout_statement as st", "st.id", "d.statement_id")
    .select(["d.statement_id", "d.issuer_name", "d.issuer_address"])
    .where("d.game_id", "=", params.gameId)
    .where("st.batch_id", "=", params.batchId)
    .where("d.issuer_name", "is not", null);
  if (params.statementId) query = query.where("d.statement_id", "=", params.statementId);
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.statement_id, { name: r.issuer_name ?? "", address: r.issuer_address ?? "" }]));
}

/** The number of each numbered statement of a batch. */
export async function listStatementNumbers(
  db: DbOrTrx,
  params: { gameId: string; batchId: string },
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("statement_document as d")
    .innerJoin("payout_statement as st", "st.id", "d.statement_id")
    .select(["d.statement_id", "d.number"])
    .where("d.game_id", "=", params.gameId)
    .where("st.batch_id", "=", params.batchId)
    .execute();
  return new Map(rows.map((r) => [r.statement_id, r.number]));
}

export async function getStatementNumber(db: DbOrTrx, params: { gameId: string; statementId: string }) {
  return firstValue(
    db
      .selectFrom("statement_document")
      .select("number")
      .where("game_id", "=", params.gameId)
      .where("statement_id", "=", params.statementId),
    "number",
  );
}

/** Which batch and recipient a statement belongs to (null when it is not the game's). */
export async function findStatementOwner(
  db: DbOrTrx,
  params: { statementId: string; gameId?: string },
): Promise<{ gameId: string; batchId: string; recipientPlayerId: number } | null> {
  let query = db
    .selectFrom("payout_statement")
    .select(["game_id", "batch_id", "recipient_player_id"])
    .where("id", "=", params.statementId);
  if (params.gameId) query = query.where("game_id", "=", params.gameId);
  const row = await query.executeTakeFirst();
  return row
    ? { gameId: row.game_id, batchId: row.batch_id, recipientPlayerId: Number(row.recipient_player_id) }
    : null;
}

// --- What a statement lists --------------------------------------------------------------------------------------

/** Every renewal line of a recipient in a snapshot, in settlement order. */
export async function listStatementLines(db: Db, params: RecipientInSnapshot) {
  const rows = await recipientLinesQuery(db, params)
    .select([
      "l.period_id as periodId",
      "l.subscription_id as subscriptionId",
      "l.item_name as itemName",
      "l.paid_at as paidAt",
      "l.amount_usd as amountUsd",
      "l.percent_at_renewal as percentAtRenewal",
      "l.base_usd as baseUsd",
      "l.attributed_amount_usd as attributedAmountUsd",
      "l.attribution_unavailable_reason as attributionUnavailableReason",
    ])
    .orderBy("l.paid_at")
    .orderBy("l.period_id")
    .execute();
  // The service's figures as it gave them (a statement's total is their sum, rounded once): never rounded each.
  return rows.map((r) => ({
    ...r,
    periodId: Number(r.periodId),
    amountUsd: exactAmount(r.amountUsd),
    baseUsd: r.baseUsd === null ? null : exactAmount(r.baseUsd),
    attributedAmountUsd: r.attributedAmountUsd === null ? null : exactAmount(r.attributedAmountUsd),
  }));
}

export type StatementLineRow = RowOf<typeof listStatementLines>;

/**
 * The start or end of the window a reversed renewal (`v`, of snapshot `s`) was settled in, when the desk has a snapshot
 * holding it: the window of the first payout batch (not discarded) among those windows, else the narrowest of them.
 * Both edges come from the same window (one order over windows, the same for both), and a batch prepared later for
 * another window holding the renewal does not change what a statement printed before says.
 */
function settledWindowEdge(edge: "window_start" | "window_end") {
  return sql<Date | null>`(select ${sql.ref(`w.${edge}`)} from snapshot w where w.game_id = s.game_id
    and w.window_start <= v.paid_at and w.window_end > v.paid_at
    order by (select min(b.prepared_at) from payout_batch b where b.game_id = w.game_id
                and b.window_start = w.window_start and b.window_end = w.window_end and b.status <> 'discarded')
             asc nulls last,
      w.window_end - w.window_start, w.window_start, w.version desc
    limit 1)`;
}

/**
 * The refund a reversal deducts in its window: the latest of its refund events there (receipts), else the period's
 * latest refund (a reversal without receipts is reported in that refund's window). The period's latest refund alone
 * may be a later one, in another window, when the snapshot was pulled after it.
 */
const refundedInWindow = sql<Date | null>`coalesce(
  (select max(e.refunded_at) from snapshot_refund_event e where e.snapshot_id = v.snapshot_id
     and e.period_id = v.period_id),
  v.latest_refund_at)`;

/** A recipient's reversals in a snapshot, each with the window its renewal was settled in. */
export async function listStatementReversals(db: Db, params: RecipientInSnapshot) {
  const rows = await db
    .selectFrom("snapshot_reversal as v")
    .innerJoin("snapshot as s", "s.id", "v.snapshot_id")
    .select([
      "v.period_id as periodId",
      "v.subscription_id as subscriptionId",
      "v.paid_at as renewalPaidAt",
      refundedInWindow.as("refundedAt"),
      "v.reversed_attributed_usd as reversedAttributedUsd",
      settledWindowEdge("window_start").as("fromWindowStart"),
      settledWindowEdge("window_end").as("fromWindowEnd"),
    ])
    .where("s.game_id", "=", params.gameId)
    .where("v.snapshot_id", "=", params.snapshotId)
    .where("v.recipient_player_id", "=", String(params.recipientPlayerId))
    .orderBy("refundedAt")
    .orderBy("v.period_id")
    .execute();
  return rows.map((r) => ({
    ...r,
    periodId: Number(r.periodId),
    reversedAttributedUsd: exactAmount(r.reversedAttributedUsd),
  }));
}

export type StatementReversalRow = RowOf<typeof listStatementReversals>;

// --- Settings ----------------------------------------------------------------------------------------------------

export async function readAppSetting(db: DbOrTrx, key: string): Promise<unknown> {
  const row = await db.selectFrom("app_setting").select("value").where("key", "=", key).executeTakeFirst();
  return row?.value;
}

export async function writeAppSetting(db: DbOrTrx, params: { key: string; value: unknown; by: string }): Promise<void> {
  const value = JSON.stringify(params.value);
  await db
    .insertInto("app_setting")
    .values({ key: params.key, value, updated_at: new Date(), updated_by: params.by })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: new Date(), updated_by: params.by }))
    .execute();
}
