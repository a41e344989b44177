import { type Kysely, sql } from "kysely";

/**
 * Refund attempts: one row per refund intent, written before the service is called, so that the client_request_id
 * and the parameters sent on every retry are the ones stored here, whatever happens to the process in between.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("refund_attempt")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id").onDelete("restrict"))
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("period_seq", "integer", (c) => c.notNull().check(sql`period_seq >= 1`))
    .addColumn("period_id", "bigint")
    .addColumn("player_email", "text")
    // The amount sent, always explicit: a "full" refund sends the remaining amount the person confirmed.
    .addColumn("amount_usd", "numeric(12, 2)", (c) => c.notNull().check(sql`amount_usd > 0`))
    .addColumn("remaining_before_usd", "numeric(12, 2)", (c) => c.notNull())
    .addColumn("is_full", "boolean", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.check(sql`char_length(reason) <= 500`))
    // "client_request_id (string, required, at most 255, not sub_-prefixed, one per refund, reuse on retry)"
    .addColumn("client_request_id", "text", (c) =>
      c
        .notNull()
        .unique()
        .check(sql`char_length(client_request_id) <= 255 and lower(client_request_id) not like 'sub\\_%'`),
    )
    .addColumn("intent_key", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .defaultTo("pending")
        .check(sql`status in ('pending', 'succeeded', 'failed', 'needs_attention', 'resolved')`),
    )
    .addColumn("actor_id", "text")
    .addColumn("actor_email", "text")
    .addColumn("actor_role", "text")
    .addColumn("impact", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("calls", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("claimed_until", "timestamptz")
    .addColumn("last_called_at", "timestamptz")
    .addColumn("last_error_code", "text")
    .addColumn("last_error_message", "text")
    .addColumn("last_error_detail", "jsonb")
    .addColumn("receipt", "jsonb")
    .addColumn("transaction_id", "text")
    .addColumn("refunded_at", "timestamptz")
    .addColumn("idempotent_replay", "boolean")
    .addColumn("resolution_note", "text")
    .addColumn("resolved_by", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("completed_at", "timestamptz")
    .execute();

  // The same intent (same subscription, period, amount and remaining amount seen at review) maps to one live attempt:
  // a double click or a second tab finds the existing row instead of creating another. A refused attempt (nothing
  // moved) frees its intent so the same refund can be tried again with a fresh key.
  await sql`create unique index refund_attempt_intent_uq on refund_attempt (game_id, intent_key) where status <>
      'failed'`.execute(db);
  // At most one unfinished attempt per period: while one is pending or needs attention, the period's remaining amount
  // is unknown and nothing else may be refunded on it.
  await sql`create unique index refund_attempt_open_period_uq on refund_attempt (game_id, subscription_id, period_seq)
    where status in ('pending', 'needs_attention')`.execute(db);
  await db.schema
    .createIndex("refund_attempt_sub_idx")
    .on("refund_attempt")
    .columns(["game_id", "subscription_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("refund_attempt_status_idx")
    .on("refund_attempt")
    .columns(["status", "claimed_until"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("refund_attempt").ifExists().execute();
}
