import { type Kysely, sql } from "kysely";

/**
 * The audit log page lists every action and outcome the log holds (db/queries/audit.ts, distinctValues), stepping from
 * one value to the next along these indexes (the game's is audit_log_game_idx). Index only: earlier instances keep
 * working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists audit_log_action_idx on audit_log (action)`.execute(db);
  await sql`create index if not exists audit_log_outcome_idx on audit_log (outcome)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists audit_log_outcome_idx`.execute(db);
  await sql`drop index if exists audit_log_action_idx`.execute(db);
}
