import "server-only";
import { type Insertable, sql, type Updateable } from "kysely";
import type { Db, DbOrTrx, Trx } from "@/db";
import type { Database, PayoutBatchStatus } from "@/db/types";
import { waitingAtMost } from "./locks";
import { countRows } from "./paging";

/** Writes and locked reads of payout batches, for the batch workflow (lib/payouts). */

/**
 * Serializes every payout change of a game (held until the transaction ends). Waits at most `waitMs` for a change
 * holding it: false when that wait ran out (the transaction is then aborted, and must end). The transaction's own lock
 * wait applies again once it is held.
 */
export async function lockPayoutsOfGame(trx: Trx, gameId: string, waitMs: number): Promise<boolean> {
  const taken = await waitingAtMost(trx, waitMs, () =>
    sql`select pg_advisory_xact_lock(hashtext(${`payouts|${gameId}`}))`.execute(trx),
  );
  return taken !== "timed_out";
}

export async function getBatchForUpdate(trx: Trx, params: { gameId: string; batchId: string }) {
  return trx
    .selectFrom("payout_batch")
    .selectAll()
    .where("game_id", "=", params.gameId)
    .where("id", "=", params.batchId)
    .forUpdate()
    .executeTakeFirst();
}

export type LockedBatch = NonNullable<Awaited<ReturnType<typeof getBatchForUpdate>>>;

/** A live (not discarded) batch of the game whose window overlaps the one given, if any. */
export async function findOverlappingBatch(db: DbOrTrx, params: { gameId: string; start: Date; end: Date }) {
  return db
    .selectFrom("payout_batch")
    .select(["id", "window_start", "window_end", "status"])
    .where("game_id", "=", params.gameId)
    .where("status", "<>", "discarded")
    .where("window_start", "<", params.end)
    .where("window_end", ">", params.start)
    .executeTakeFirst();
}

export async function insertBatch(trx: Trx, row: Insertable<Database["payout_batch"]>): Promise<void> {
  await trx.insertInto("payout_batch").values(row).execute();
}

export type BatchColumns = Omit<Updateable<Database["payout_batch"]>, "id" | "game_id" | "status">;

/** Sets the batch's status (and the columns given) when it is in one of `from`. */
export async function setBatchStatus(
  trx: Trx,
  params: { batchId: string; status: PayoutBatchStatus; from?: readonly PayoutBatchStatus[]; columns?: BatchColumns },
): Promise<void> {
  let query = trx
    .updateTable("payout_batch")
    .set({ ...params.columns, status: params.status, updated_at: new Date() })
    .where("id", "=", params.batchId);
  if (params.from) query = query.where("status", "in", [...params.from]);
  await query.execute();
}

/**
 * One more change of the batch (payout_batch.revision), in the transaction that makes it; returns the database's
 * clock at that moment, which the change is stamped with, and the revision the change makes.
 */
export async function bumpBatchRevision(trx: Trx, batchId: string): Promise<{ now: Date; revision: string }> {
  const row = await trx
    .updateTable("payout_batch")
    .set({ revision: sql<string>`revision + 1` })
    .where("id", "=", batchId)
    .returning([sql<Date>`clock_timestamp()`.as("now"), "revision"])
    .executeTakeFirstOrThrow();
  return { now: row.now, revision: String(row.revision) };
}

export async function countApprovedStatements(trx: Trx, batchId: string): Promise<number> {
  return countRows(
    trx
      .selectFrom("payout_statement")
      .where("batch_id", "=", batchId)
      // Owed and not yet paid: approved, in a live payment file, or paid and returned.
      .where("state", "in", ["approved", "in_payment", "returned"]),
  );
}

/** Frees the carried balances the batch's statements took in; returns how many. */
export async function deleteCarriesInto(trx: Trx, batchId: string): Promise<number> {
  const freed = await trx
    .deleteFrom("payout_carry")
    .where("to_statement_id", "in", (eb) =>
      eb.selectFrom("payout_statement").select("id").where("batch_id", "=", batchId),
    )
    .executeTakeFirst();
  return Number(freed.numDeletedRows);
}

/**
 * The live (not discarded) batch of each window, for the overview, with its statements held: still owed, though a
 * batch with nothing approved left unpaid is paid.
 */
export async function listLiveBatchesByWindow(
  db: Db,
  gameId: string,
): Promise<Map<string, { id: string; status: string; snapshotId: string; held: number }>> {
  const rows = await db
    .selectFrom("payout_batch as b")
    .select(["b.id", "b.status", "b.window_start", "b.window_end", "b.snapshot_id"])
    // The tally the statements' triggers keep (db/queries/batch-tally.ts), not a count of a batch's statements.
    .select((eb) =>
      eb
        .selectFrom("payout_batch_tally as t")
        .select("t.statements")
        .whereRef("t.batch_id", "=", "b.id")
        .where("t.state", "=", "held")
        .as("held"),
    )
    .where("b.game_id", "=", gameId)
    .where("b.status", "<>", "discarded")
    .execute();
  return new Map(
    rows.map((r) => [
      `${r.window_start.getTime()}|${r.window_end.getTime()}`,
      { id: r.id, status: r.status, snapshotId: r.snapshot_id, held: Number(r.held ?? 0) },
    ]),
  );
}
