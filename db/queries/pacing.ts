import "server-only";
import { sql } from "kysely";
import type { Db } from "../index";
import { isLockNotAvailable } from "./locks";

export type PaceBucket = { key: string; limit: number; windowMs: number };

/** Admits one call through every bucket (0), or answers the milliseconds to wait before asking again. */
export async function acquirePace(db: Db, buckets: readonly PaceBucket[], spread: boolean): Promise<number> {
  const result = await sql<{ wait_ms: number }>`select pace_acquire(
      ${buckets.map((b) => b.key)}::text[],
      ${buckets.map((b) => b.limit)}::integer[],
      ${buckets.map((b) => b.windowMs)}::double precision[],
      ${spread}) as wait_ms`.execute(db);
  return Number(result.rows[0]?.wait_ms ?? 0);
}

/** Holds the buckets closed for `ms` from now, by the database's clock. */
export async function pausePace(db: Db, keys: readonly string[], ms: number): Promise<void> {
  await sql`select pace_pause(${[...keys]}::text[], ${ms}::double precision)`.execute(db);
}

/** How much longer the most paused of the buckets stays paused, by the database's clock (0 when none is). */
export async function pausedForMs(db: Db, keys: readonly string[]): Promise<number> {
  const result = await sql<{ ms: number | null }>`select max(paused_until)
      - extract(epoch from clock_timestamp()) * 1000 as ms
    from service_pace where key = any(${[...keys]}::text[])`.execute(db);
  return Math.max(0, Number(result.rows[0]?.ms ?? 0));
}

/**
 * Forgets buckets nobody used for an hour and that hold no pause. pace_acquire makes its rows (insert, doing nothing
 * when they exist) before locking them: a bucket deleted between the two would leave it nothing to lock and count. So
 * the delete waits for the admissions under way to end and holds new ones back while it runs (the table's share row
 * exclusive lock conflicts with their inserts' row exclusive one). It waits at most 50 ms for that lock (admissions
 * queue behind a waiting lock; a vacuum of the table holds it longer) and is otherwise left to the next sweep: 0.
 */
export async function deleteIdlePace(db: Db): Promise<number> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '50ms'`.execute(trx);
      await sql`lock table service_pace in share row exclusive mode`.execute(trx);
      const result = await sql`delete from service_pace where touched_at < now() - interval '1 hour'
        and paused_until < extract(epoch from clock_timestamp()) * 1000`.execute(trx);
      return Number(result.numAffectedRows ?? 0);
    });
  } catch (error) {
    if (isLockNotAvailable(error)) return 0;
    throw error;
  }
}
