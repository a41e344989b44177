import { type Kysely, sql } from "kysely";

/**
 * payout_batch.revision: counts the changes made to a batch and its statements (lib/payouts/transition.ts adds one in
 * the transaction of each). A person approving a batch or recording its payment confirms the figures a page showed;
 * the page sends the revision it was drawn at and the change is refused when the batch has moved on since.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_batch add column if not exists revision bigint not null default 0`.execute(db);
}
