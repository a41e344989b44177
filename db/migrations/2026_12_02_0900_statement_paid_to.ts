import { type Kysely, sql } from "kysely";

/**
 * The account a statement was paid to, masked, kept with the payment: a statement printed again (downloaded, its link
 * followed, emailed again) names the account the money went to, not the one on the recipient's profile since.
 *
 * - payment_file_item.account_masked: the masked details each item of a payment file was written with.
 * - payout_statement.paid_to_masked: set when the statement is paid (from its file's item, or for a payment recorded
 *   by hand from the profile when its method is the payment's), cleared when the payment comes back.
 *
 * Statements paid before this change take their profile's masked details as they are now: what their documents have
 * printed so far, so printing them again gives the same bytes. Every paid statement is updated, and an earlier
 * release would pay statements without keeping the account: the earlier release is stopped first.
 */
export const exclusive = true;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_file_item add column if not exists account_masked text`.execute(db);
  await sql`alter table payout_statement add column if not exists paid_to_masked text`.execute(db);
  await sql`
    update payout_statement s set paid_to_masked = p.details_masked
      from payout_profile p
     where s.state = 'paid' and p.game_id = s.game_id and p.player_id = s.recipient_player_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_statement drop column if exists paid_to_masked`.execute(db);
  await sql`alter table payment_file_item drop column if exists account_masked`.execute(db);
}
