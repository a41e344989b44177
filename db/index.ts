import "server-only";
import { Kysely, type KyselyPlugin, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { requireEnv } from "@/core/env";
import { Slots } from "@/core/slots";
import type { Database } from "./types";

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** What every query takes: the database or a transaction on it. */
export type DbOrTrx = Db | Trx;

/** What a Db made by createDb holds beside its Kysely instance. */
type PoolEntry = { pool: pg.Pool; readings: Slots | null; plugins: KyselyPlugin[] };

// Kept on globalThis like the shared Db below: the app's bundles may each hold their own copy of this module,
// and a Db made by one copy must find its pool (and the pool's reading slots) from another.
const registry = globalThis as unknown as { __payoutDeskPools?: WeakMap<Db, PoolEntry> };
registry.__payoutDeskPools ??= new WeakMap<Db, PoolEntry>();
const pools = registry.__payoutDeskPools;

export function createDb(connectionString: string, options: { max?: number; plugins?: KyselyPlugin[] } = {}): Db {
  const max = options.max ?? 10;
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection must not take the process down.
  pool.on("error", () => {});
  const plugins = options.plugins ?? [];
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins });
  pools.set(db, { pool, readings: max >= 2 ? new Slots(Math.floor(max / 2)) : null, plugins });
  return db;
}

function entryOf(db: Db): PoolEntry {
  const entry = pools.get(db);
  if (!entry) throw new Error("this Db was not made by createDb");
  return entry;
}

/**
 * The pg pool behind a Db, for the few reads that need what Kysely does not offer (rows as arrays of text for the
 * streamed exports). Same connections, same limits.
 */
export function poolOf(db: Db): pg.Pool {
  return entryOf(db).pool;
}

/**
 * Runs `work` in a transaction of `db` whose connection it also gets, for what Kysely does not offer on it (a `COPY …
 * FROM STDIN`, db/queries/copy.ts): a Kysely instance of its own, with the Db's plugins, takes one connection of the
 * pool for the transaction and hands it back when the transaction ends, committed or rolled back.
 */
export async function transactionWithConnection<T>(
  db: Db,
  work: (trx: Trx, connection: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const { pool, plugins } = entryOf(db);
  let taken: pg.PoolClient | null = null;
  const single = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => {
          if (taken) throw new Error("a transaction with its connection takes one connection only");
          taken = await pool.connect();
          return taken;
        },
        end: async () => {},
      },
    }),
    plugins,
  });
  try {
    return await single.transaction().execute((trx) => {
      if (!taken) throw new Error("the transaction has no connection");
      return work(trx, taken);
    });
  } finally {
    await single.destroy();
  }
}

/**
 * The long readings (a transaction held while a file streams) one pool may have under way at once: half its
 * connections, so that what they write meanwhile through another connection, and the rest of the app, always find
 * one. A pool of one connection has none to spare: such a reading is refused rather than left waiting for ever.
 */
export function longReadingSlots(db: Db): Slots {
  const { readings } = entryOf(db);
  if (!readings) throw new Error("reading from one snapshot needs a pool of at least two connections");
  return readings;
}

const holder = globalThis as unknown as { __payoutDeskDb?: Db };

/** The app's shared Kysely instance (one pool per process, kept across dev reloads). */
export function getDb(): Db {
  // A Db kept from before a dev reload that this registry does not know is replaced, so poolOf always works.
  if (!holder.__payoutDeskDb || !pools.has(holder.__payoutDeskDb))
    holder.__payoutDeskDb = createDb(requireEnv("DATABASE_URL"));
  return holder.__payoutDeskDb;
}
