import type { SelectQueryBuilder } from "kysely";

/** A page number and size from a request, clamped: pages from 1, sizes from 1 to `max`. */
export function pageOf(
  params: { page?: number; pageSize?: number },
  limits: { size: number; max: number },
): { page: number; pageSize: number; offset: number } {
  const pageSize = Math.min(Math.max(params.pageSize ?? limits.size, 1), limits.max);
  const page = Math.max(params.page ?? 1, 1);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** How many rows a query (before any select) finds. */
export async function countRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  // Kysely cannot resolve the selection over an unknown table set; the one column is `n`.
  const row = (await query.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirst()) as
    | { n: string }
    | undefined;
  return Number(row?.n ?? 0);
}
