import "server-only";
import type { Db } from "@/db";
import { analyzeTables, type AnalyzedTable } from "@/db/queries/statistics";
import { log } from "@/lib/log";

/** Rows written at once from which the planner's statistics of the tables written are refreshed right away. */
export const ANALYZE_AFTER_ROWS = 1_000;

/**
 * After a bulk write commits (a snapshot published, a batch prepared), refreshes the written tables' planner
 * statistics. Until autovacuum comes round (a minute or more later), the planner would still see the tables as they
 * were: the pages people open right after (the window's review) were measured three times slower on plans made for
 * tables without the new rows. A failure is logged, never raised: the write itself succeeded.
 */
export async function refreshStatisticsAfterBulkWrite(
  db: Db,
  tables: readonly AnalyzedTable[],
  rowsWritten: number,
): Promise<void> {
  if (rowsWritten < ANALYZE_AFTER_ROWS) return;
  try {
    await analyzeTables(db, tables);
  } catch (error) {
    log.warn("planner statistics not refreshed", { tables, error });
  }
}
