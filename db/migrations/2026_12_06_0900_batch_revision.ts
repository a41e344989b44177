import { type Kysely, sql } from "kysely";

/**
 * Applied with every instance of the earlier release stopped (an earlier release changes batches without counting their
 * revision, which the stale-page checks read): only by `desk migrate`, never by a start or another command on a
 * database that has earlier migrations (README, "Deploying").
 */
export const exclusive = true;

/**
 * payout_batch.revision: counts the changes made to a batch and its statements (lib/payouts/transition.ts adds one in
 * the transaction of each). A person approving a batch or recording its payment confirms the figures a page showed;
 * the page sends the revision it was drawn at and the change is refused when the batch has moved on since.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_batch add column if not exists revision bigint not null default 0`.execute(db);
}
