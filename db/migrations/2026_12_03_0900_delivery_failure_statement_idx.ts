import { type Kysely, sql } from "kysely";

/**
 * The failed statement emails found by statement: a batch's send offers again a statement whose email failed to send
 * (db/queries/statement-deliveries.ts, `failedToSend`), asked once per statement of the batch.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists statement_delivery_failure_statement_idx
    on statement_delivery_failure (statement_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists statement_delivery_failure_statement_idx`.execute(db);
}
