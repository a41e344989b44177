import "server-only";
import { sql } from "kysely";
import type { Db } from "../index";

/** Tables written in bulk (a snapshot's rows, a batch's statements): a large write outdates their statistics. */
export type AnalyzedTable =
  | "snapshot_line"
  | "snapshot_recipient"
  | "snapshot_reversal"
  | "snapshot_page"
  | "payout_statement"
  | "payout_statement_event"
  | "payout_carry"
  | "payment_file_item"
  | "payment_result"
  | "payment_return"
  | "payout_profile"
  | "payout_profile_change";

/** Tables analyzed at once, each on a connection of its own. */
const ANALYZED_AT_ONCE = 2;

/**
 * Refreshes the planner's statistics of these tables now (ANALYZE samples at most a few tens of thousands of rows a
 * table), instead of when autovacuum next comes round. Run outside a transaction, after the write committed. Each
 * table is analyzed by a statement of its own, two at a time: one ANALYZE of them all runs on one core, table after
 * table (four tables of a snapshot of 100,000 lines took 0.64 s so).
 */
export async function analyzeTables(db: Db, tables: readonly AnalyzedTable[]): Promise<void> {
  const queue = [...tables];
  const next = async (): Promise<void> => {
    for (let table = queue.shift(); table !== undefined; table = queue.shift())
      await sql`analyze ${sql.table(table)}`.execute(db);
  };
  // Both run to their end before a failure is told, so that none is left running behind it.
  const ended = await Promise.allSettled(Array.from({ length: Math.min(ANALYZED_AT_ONCE, queue.length) }, next));
  for (const end of ended) if (end.status === "rejected") throw end.reason;
}

/** When each table's statistics were last refreshed by an ANALYZE of ours (not autovacuum's); null if never. */
export async function lastAnalyzedAt(db: Db, tables: readonly AnalyzedTable[]): Promise<Record<string, Date | null>> {
  const rows = await sql<{ relname: string; last_analyze: Date | null }>`
    select relname, last_analyze from pg_stat_user_tables
    where schemaname = current_schema() and relname in (${sql.join(tables)})`.execute(db);
  return Object.fromEntries(rows.rows.map((r) => [r.relname, r.last_analyze]));
}
