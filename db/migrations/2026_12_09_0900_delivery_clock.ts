import { type Kysely, sql } from "kysely";

/**
 * A statement email's queued time is the moment it was queued, not its transaction's start: a send waits for the
 * batch's earlier send before it queues, and what it is compared with (a payment's paid event, a return, a revocation
 * of the batch's links) is stamped when it happened (`clock_timestamp()`). Stamped at the transaction's start, a send
 * that waited behind a return looked older than the return, so the return's email was owed again, or a revocation
 * made while it waited withheld the corrected email it queued after. A payment return's default follows the same
 * clock (its writers give the time themselves, read from it). Earlier rows keep their time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table statement_delivery alter column at set default clock_timestamp()`.execute(db);
  await sql`alter table payment_return alter column at set default clock_timestamp()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_return alter column at set default now()`.execute(db);
  await sql`alter table statement_delivery alter column at set default now()`.execute(db);
}
