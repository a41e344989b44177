import { type Kysely, sql } from "kysely";

/**
 * A window's stale flag also asks for the refunds and renewals received since its version began reading that are not
 * processed yet (waiting for a worker, or failed): a handful among every event ever received. Index only: earlier
 * instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists webhook_event_unprocessed_idx on webhook_event (game_id, received_at)
    where status in ('pending', 'failed') and event_type in ('subscription.refunded', 'subscription.renewed')`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_event_unprocessed_idx`.execute(db);
}
