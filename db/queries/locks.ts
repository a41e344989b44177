import "server-only";
import { sql } from "kysely";
import type { DbOrTrx, Trx } from "@/db";

/**
 * Advisory locks and savepoints: the few statements that are about the session or the transaction rather than a
 * table. Keys are hashed with hashtext, so any text names a lock.
 */

/** Takes the session lock on `key` when free (on one connection: `db.connection().execute(...)`); true when taken. */
export async function tryAdvisoryLock(conn: DbOrTrx, key: string): Promise<boolean> {
  const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${key})) as ok`.execute(conn);
  return got.rows[0]?.ok === true;
}

/** Drops a session lock taken by tryAdvisoryLock on the same connection. */
export async function releaseAdvisoryLock(conn: DbOrTrx, key: string): Promise<void> {
  await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
}

/** Waits for the lock on `key`, held until the transaction ends. */
export async function lockForTransaction(trx: Trx, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}

export async function createSavepoint(trx: Trx, name: string): Promise<void> {
  await sql`savepoint ${sql.id(name)}`.execute(trx);
}

export async function releaseSavepoint(trx: Trx, name: string): Promise<void> {
  await sql`release savepoint ${sql.id(name)}`.execute(trx);
}

export async function rollbackToSavepoint(trx: Trx, name: string): Promise<void> {
  await sql`rollback to savepoint ${sql.id(name)}`.execute(trx);
}
