import { type Kysely, sql } from "kysely";

/**
 * A batch's `negative_balance_elsewhere` flags read the recipients' negative balances another batch holds (a draft) or
 * carried out: a handful among every statement ever prepared. Index only: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists payout_statement_negative_idx on payout_statement (game_id, recipient_player_id)
    where (state in ('draft', 'approved') and available_usd < 0) or (state in ('paid', 'carried') and carry_out_usd < 0)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_statement_negative_idx`.execute(db);
}
