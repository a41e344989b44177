import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";

/** The value of `column` in the first row `query` finds, or null when it finds none (or the value is null). */
export async function firstValue<O, K extends keyof O>(
  query: { executeTakeFirst(): Promise<O | undefined> },
  column: K,
): Promise<O[K] | null> {
  const row = await query.executeTakeFirst();
  return row?.[column] ?? null;
}

/** The database's clock, in epoch ms: what every process of a fleet agrees on, whatever its own clock says. */
export async function databaseNowMs(db: DbOrTrx): Promise<number> {
  const { rows } = await sql<{ ms: string }>`
    select (extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms`.execute(db);
  return Number(rows[0]?.ms);
}
