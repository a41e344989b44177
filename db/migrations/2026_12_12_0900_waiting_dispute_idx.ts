import { type Kysely, sql } from "kysely";

/**
 * A batch's dispute flags also read the chargeback events not processed yet (waiting for a worker, or failed): a
 * handful among every event ever received. Index only: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists webhook_event_waiting_dispute_idx on webhook_event (game_id)
    where status in ('pending', 'failed') and event_type = 'purchase.disputed'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_event_waiting_dispute_idx`.execute(db);
}
