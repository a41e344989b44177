import { type Kysely, sql } from "kysely";

/**
 * A refund is sent only after the period was read again and still looked like what the person reviewed; the time of
 * that check is stored before the first call, so an attempt without it has never been sent and is checked (again)
 * whoever takes it next, a second tab or the reconciler after a crash.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("refund_attempt").addColumn("period_checked_at", "timestamptz").execute();
  // Attempts stored before the check existed may already have been sent: they are never checked.
  await sql`update refund_attempt set period_checked_at = coalesce(last_called_at, created_at)
    where calls > 0 or status <> 'pending'`.execute(db);
  // The support limit adds up the refunds support made on one period.
  await db.schema
    .createIndex("refund_attempt_period_idx")
    .on("refund_attempt")
    .columns(["game_id", "subscription_id", "period_seq"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("refund_attempt_period_idx").ifExists().execute();
  await db.schema.alterTable("refund_attempt").dropColumn("period_checked_at").execute();
}
