import { type Kysely, sql } from "kysely";

/**
 * Applied with every instance of the earlier release stopped (an earlier release's results import names the constraint
 * this replaces, and would fail): only by `desk migrate`, never by a start or another command on a database that has
 * earlier migrations (README, "Deploying").
 */
export const exclusive = true;

/**
 * payment_result_once becomes an index: a result is recorded once per statement, outcome and provider transaction
 * id, or, when the provider gives none (pain.002 without AcctSvcrRef, a generic file without one), once per
 * statement, outcome and file. A statement filed again is sent under a reference of that filing
 * (lib/payments/reference.ts), so a second rejection without a transaction id, from the file that replaced the
 * first, is a result of its own.
 *
 * payment_file_item_statement_idx: a statement's items across files, for its filing number when a file is made (a
 * count per statement of the batch, under the game's payout lock).
 *
 * Going down restores the constraint, which fails once a statement has results without a transaction id from two
 * files: those rows would have to be merged first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_result drop constraint if exists payment_result_once`.execute(db);
  await sql`create unique index payment_result_once on payment_result
    (statement_id, outcome, coalesce('t:' || provider_transaction_id, 'f:' || file_id::text))`.execute(db);
  await sql`create index if not exists payment_file_item_statement_idx on payment_file_item (statement_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payment_file_item_statement_idx`.execute(db);
  await sql`drop index if exists payment_result_once`.execute(db);
  await sql`alter table payment_result add constraint payment_result_once
    unique nulls not distinct (statement_id, provider_transaction_id, outcome)`.execute(db);
}
