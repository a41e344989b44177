import { type Kysely, sql } from "kysely";

/**
 * The liability as of a day reads the statements whose state then can count (db/queries/liability.ts, unsettledAt):
 * those not closed for good, and those changed since the day. Without these, it read every event of every statement
 * ever prepared. Indexes only: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists payout_statement_unsettled_idx on payout_statement (game_id)
    where state not in ('paid', 'carried') or carry_out_usd <> 0`.execute(db);
  await sql`create index if not exists payout_statement_event_game_at_idx
    on payout_statement_event (game_id, at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_statement_event_game_at_idx`.execute(db);
  await sql`drop index if exists payout_statement_unsettled_idx`.execute(db);
}
