import { type Kysely, sql } from "kysely";

/**
 * A statement email's queued time, and a payment return's, are the moment each was written, not their transaction's
 * start: a send waits for the batch's earlier send before it queues, a return waits for the game's payouts lock, and
 * what they are compared with (a payment's paid event, a revocation of the batch's links, each other) is stamped when
 * it happened (`clock_timestamp()`). Stamped at the transaction's start, a send that waited behind a payment looked
 * older than the payment, so the payment's email was owed again, or a revocation made while it waited withheld the
 * corrected email it queued after. Earlier rows keep their time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table statement_delivery alter column at set default clock_timestamp()`.execute(db);
  await sql`alter table payment_return alter column at set default clock_timestamp()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_return alter column at set default now()`.execute(db);
  await sql`alter table statement_delivery alter column at set default now()`.execute(db);
}
