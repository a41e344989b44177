import "server-only";
import { Kysely, type KyselyPlugin, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { requireEnv } from "@/core/env";
import type { Database } from "./types";

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** What every query takes: the database or a transaction on it. */
export type DbOrTrx = Db | Trx;

// Kept on globalThis like the shared Db below: the app's bundles may each hold their own copy of this module,
// and a Db made by one copy must find its pool from another.
const registry = globalThis as unknown as { __payoutDeskPools?: WeakMap<Db, pg.Pool> };
registry.__payoutDeskPools ??= new WeakMap<Db, pg.Pool>();
const pools = registry.__payoutDeskPools;

export function createDb(connectionString: string, options: { max?: number; plugins?: KyselyPlugin[] } = {}): Db {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection must not take the process down.
  pool.on("error", () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: options.plugins });
  pools.set(db, pool);
  return db;
}

/**
 * The pg pool behind a Db, for the few reads that need what Kysely does not offer (rows as arrays of text for the
 * streamed exports). Same connections, same limits.
 */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("this Db was not made by createDb");
  return pool;
}

const holder = globalThis as unknown as { __payoutDeskDb?: Db };

/** The app's shared Kysely instance (one pool per process, kept across dev reloads). */
export function getDb(): Db {
  // A Db kept from before a dev reload that this registry does not know is replaced, so poolOf always works.
  if (!holder.__payoutDeskDb || !pools.has(holder.__payoutDeskDb))
    holder.__payoutDeskDb = createDb(requireEnv("DATABASE_URL"));
  return holder.__payoutDeskDb;
}
