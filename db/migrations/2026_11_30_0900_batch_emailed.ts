import { type Kysely, sql } from "kysely";

/**
 * payout_batch_emailed: how many of a batch's statements were ever emailed, counted as their first email is queued
 * (lib/statements/send.ts, under the batch's send lock). The batch's send emails the statements never emailed, and
 * the window page says how many there are on every view: asking the delivery log about each of 100,000 statements
 * cost 450 – 650 ms a view. Filled from the delivery log.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table payout_batch_emailed (
    batch_id uuid primary key references payout_batch (id),
    statements bigint not null check (statements >= 0)
  )`.execute(db);
  await sql`insert into payout_batch_emailed (batch_id, statements)
    select s.batch_id, count(distinct d.statement_id)
    from statement_delivery d join payout_statement s on s.id = d.statement_id
    group by s.batch_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table payout_batch_emailed`.execute(db);
}
