import "server-only";
import { sql } from "kysely";
import { type Db, type DbOrTrx, poolOf, type Trx } from "@/db";

/**
 * Advisory locks and savepoints: the few statements that are about the session or the transaction rather than a
 * table. Keys are hashed with hashtext, so any text names a lock.
 */

/** PostgreSQL's lock_not_available: a lock (or an advisory lock) not granted within the transaction's lock_timeout. */
export function isLockNotAvailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "55P03";
}

/**
 * Runs `take` (a statement that waits for a lock) waiting at most `waitMs` for it, in this transaction: "timed_out"
 * when the wait ran out (the transaction is then aborted: its caller leaves it), else what `take` gave, the
 * transaction's own lock_timeout restored for what follows.
 */
export async function waitingAtMost<T>(trx: DbOrTrx, waitMs: number, take: () => Promise<T>): Promise<T | "timed_out"> {
  const shown = await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx);
  const previous = shown.rows[0]?.lock_timeout ?? "0";
  await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`.execute(trx);
  let taken: T;
  try {
    taken = await take();
  } catch (error) {
    if (isLockNotAvailable(error)) return "timed_out";
    throw error;
  }
  await sql`select set_config('lock_timeout', ${previous}, true)`.execute(trx);
  return taken;
}

/** Takes the session lock on `key` when free (on one connection: `db.connection().execute(...)`); true when taken. */
export async function tryAdvisoryLock(conn: DbOrTrx, key: string): Promise<boolean> {
  const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${key})) as ok`.execute(conn);
  return got.rows[0]?.ok === true;
}

/** A session lock held on a connection of its own; `lost` is the error that ended that connection, if one did. */
export type SessionLock = {
  lost(): Error | null;
  /** Asks the database through the lock's connection: a connection ended without a word is then noted lost. */
  check(): Promise<void>;
  release(): Promise<void>;
};

/**
 * Takes the session lock on `key` when free, on a connection kept for it until `release`; null when another session
 * holds it. The connection sits idle while the lock is held: a database that ends it meanwhile (a restart, a failover,
 * an administrator) is noted as `lost`, never an unheard error that would take the process down, and told to `onLost`
 * (the lock is gone: another session may take it).
 */
export async function holdSessionLock(
  db: Db,
  key: string,
  onLost?: (error: Error) => void,
): Promise<SessionLock | null> {
  const client = await poolOf(db).connect();
  let lost: Error | null = null;
  const onError = (error: Error) => {
    if (lost) return;
    lost = error;
    onLost?.(error);
  };
  client.on("error", onError);
  const done = (error?: Error) => {
    client.removeListener("error", onError);
    // A connection that failed is closed, not handed to the next caller.
    client.release(error);
  };
  let taken: boolean;
  try {
    const got = await client.query<{ ok: boolean }>("select pg_try_advisory_lock(hashtext($1)) as ok", [key]);
    taken = got.rows[0]?.ok === true;
  } catch (error) {
    done(error as Error);
    throw error;
  }
  if (!taken) {
    done();
    return null;
  }
  return {
    lost: () => lost,
    async check() {
      if (lost) return;
      try {
        await client.query("select 1");
      } catch (error) {
        onError(error as Error);
      }
    },
    async release() {
      try {
        if (!lost) await client.query("select pg_advisory_unlock(hashtext($1))", [key]);
      } catch (error) {
        lost ??= error as Error;
      } finally {
        done(lost ?? undefined);
      }
    },
  };
}

/** Drops a session lock taken by tryAdvisoryLock on the same connection. */
export async function releaseAdvisoryLock(conn: DbOrTrx, key: string): Promise<void> {
  await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
}

/** Waits for the lock on `key`, held until the transaction ends. */
export async function lockForTransaction(trx: Trx, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}

/** Waits for the shared lock on `key` until the transaction ends: only one holding the whole lock makes it wait. */
export async function lockSharedForTransaction(trx: Trx, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtext(${key}))`.execute(trx);
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
