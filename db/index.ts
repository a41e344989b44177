import "server-only";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { requireEnv } from "@/lib/env";
import type { Database } from "./types";

export type Db = Kysely<Database>;

export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, idleTimeoutMillis: 30_000 });
  // An idle client that loses its connection must not take the process down.
  pool.on("error", () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const holder = globalThis as unknown as { __payoutDeskDb?: Db };

/** The app's shared Kysely instance (one pool per process, kept across dev reloads). */
export function getDb(): Db {
  holder.__payoutDeskDb ??= createDb(requireEnv("DATABASE_URL"));
  return holder.__payoutDeskDb;
}
