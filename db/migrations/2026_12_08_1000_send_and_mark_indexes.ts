import { type Kysely, sql } from "kysely";

/**
 * Three lookups that read their whole table without an index, worse every month:
 * - a statement email's job asks whether its send already went out, or was settled, by `send_id`
 *   (db/queries/statement-deliveries.ts): two or more rows a statement emailed, kept for good;
 * - a window's stale flag asks for the marks made after its version began reading (`marked_at`), about one a
 *   renewal delivered: by the mark's time first, the marks since the latest version are few;
 * - the webhook sweep, every 5 minutes, asks for processed events whose re-pulls could not be queued: a handful
 *   among every event ever received.
 * Indexes only: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists statement_delivery_send_idx on statement_delivery (send_id)`.execute(db);
  await sql`create index if not exists snapshot_stale_mark_marked_idx
    on snapshot_stale_mark (game_id, marked_at)`.execute(db);
  await sql`create index if not exists webhook_event_repull_due_idx on webhook_event (received_at)
    where status = 'processed' and (effect->>'repullDue') = 'true'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_event_repull_due_idx`.execute(db);
  await sql`drop index if exists snapshot_stale_mark_marked_idx`.execute(db);
  await sql`drop index if exists statement_delivery_send_idx`.execute(db);
}
