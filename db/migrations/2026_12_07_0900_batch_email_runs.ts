import { type Kysely, sql } from "kysely";

/**
 * payout_batch_emailed.runs: how many times a batch's statement emails were queued (lib/statements/send.ts adds one
 * under the batch's send lock). "Email statements again" sends the count its page showed and is refused when a run
 * was queued since (a first press cut off by a proxy still running, a colleague, another tab): every recipient would
 * otherwise be emailed twice. An earlier release queues runs without counting them, so that a press on it and one on
 * this release, both from pages showing the same count, would both be sent: the earlier release is stopped first.
 */
export const exclusive = true;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_batch_emailed add column if not exists runs integer not null default 0`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_batch_emailed drop column if exists runs`.execute(db);
}
