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

/**
 * Refreshes the planner's statistics of these tables now (ANALYZE samples at most a few tens of thousands of rows a
 * table), instead of when autovacuum next comes round. Run outside a transaction, after the write committed.
 */
export async function analyzeTables(db: Db, tables: readonly AnalyzedTable[]): Promise<void> {
  if (tables.length === 0) return;
  await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
}

/** When each table's statistics were last refreshed by an ANALYZE of ours (not autovacuum's); null if never. */
export async function lastAnalyzedAt(db: Db, tables: readonly AnalyzedTable[]): Promise<Record<string, Date | null>> {
  const rows = await sql<{ relname: string; last_analyze: Date | null }>`
    select relname, last_analyze from pg_stat_user_tables
    where schemaname = current_schema() and relname in (${sql.join(tables)})`.execute(db);
  return Object.fromEntries(rows.rows.map((r) => [r.relname, r.last_analyze]));
}
