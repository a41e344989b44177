import "server-only";
import { type RawBuilder, sql } from "kysely";

/** Rows per statement: keeps every insert or `in (...)` list well under PostgreSQL's 65,535 bound parameters. */
export const CHUNK_SIZE = 1000;

/**
 * Runs `run` over `items` in chunks of `size` (one statement each), in order, and returns each chunk's result. Nothing
 * runs for an empty list.
 */
export async function inChunks<T, R>(
  items: readonly T[],
  run: (chunk: T[]) => Promise<R>,
  size: number = CHUNK_SIZE,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(await run(items.slice(i, i + size)));
  return out;
}

/**
 * `any($1::<type>[])`, for `.where(column, "=", anyOf(values, type))`: the whole list is one bound parameter, where an
 * `in (...)` list binds one per value and PostgreSQL refuses a statement with more than 65,535 (a batch of 100,000
 * statements). An empty list matches nothing.
 */
export function anyOf(values: readonly string[], type: "uuid" | "text" | "bigint"): RawBuilder<string> {
  return sql<string>`any(${[...values]}::${sql.raw(type)}[])`;
}
