import { type Kysely, sql } from "kysely";

/**
 * A flag override covers the flag instance it was written for: the cause the flag had then (a stale mark, a snapshot
 * version, a drift, a dispute and its status) and when that cause was raised. A new cause is a new flag that blocks
 * again. Overrides written before causes were kept name none, so they cover nothing and finance reviews those flags
 * again.
 *
 * Chargebacks (`purchase.disputed`) are kept in a table of their own, one row per dispute, linked to the renewal line
 * they concern by the line's `mint_order_id` (the event's `order_id`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("payout_flag_override")
    .addColumn("cause", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("raised_at", "timestamptz")
    .execute();
  await sql`drop index payout_flag_override_uq`.execute(db);
  await sql`create unique index payout_flag_override_uq on payout_flag_override
    (batch_id, coalesce(recipient_player_id, -1), flag, cause)`.execute(db);

  await db.schema
    .createTable("service_dispute")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("dispute_id", "text", (c) => c.notNull())
    // The currency purchase order disputed: a renewal line's mint_order_id.
    .addColumn("order_id", "text", (c) => c.notNull())
    .addColumn("transaction_id", "text")
    .addColumn("reason", "text")
    // From the opening event; a close that arrives first leaves it null until the opening event comes.
    .addColumn("usd_amount", "numeric")
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('open', 'won', 'lost')`))
    .addColumn("opened_at", "timestamptz")
    .addColumn("closed_at", "timestamptz")
    .addColumn("currency_debited", "numeric")
    .addColumn("opened_event_id", "text")
    .addColumn("closed_event_id", "text")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addUniqueConstraint("service_dispute_uq", ["game_id", "dispute_id"])
    .execute();
  await db.schema
    .createIndex("service_dispute_order_idx")
    .on("service_dispute")
    .columns(["game_id", "order_id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("service_dispute").ifExists().execute();
  await sql`drop index if exists payout_flag_override_uq`.execute(db);
  await db.schema.alterTable("payout_flag_override").dropColumn("raised_at").dropColumn("cause").execute();
  await sql`create unique index payout_flag_override_uq on payout_flag_override
    (batch_id, coalesce(recipient_player_id, -1), flag)`.execute(db);
}
