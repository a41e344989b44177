import { type Kysely, sql } from "kysely";

/**
 * payment_result_once becomes an index: a result is recorded once per statement, outcome and provider transaction
 * id, or, when the provider gives none (pain.002 without AcctSvcrRef, a generic file without one), once per
 * statement, outcome and file. A statement filed again is sent under a reference of that filing
 * (lib/payments/reference.ts), so a second rejection without a transaction id, from the file that replaced the
 * first, is a result of its own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_result drop constraint if exists payment_result_once`.execute(db);
  await sql`create unique index payment_result_once on payment_result
    (statement_id, outcome, coalesce('t:' || provider_transaction_id, 'f:' || file_id::text))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payment_result_once`.execute(db);
  await sql`alter table payment_result add constraint payment_result_once
    unique nulls not distinct (statement_id, provider_transaction_id, outcome)`.execute(db);
}
