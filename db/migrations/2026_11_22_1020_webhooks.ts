import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  // One row per event the service delivered and we verified. Spec: "X-Service-Idempotency-Key (stable across
  // retries and replays; dedupe on this)": the unique key is part of the row, so the event and its key are written
  // by one statement and a duplicate can never slip in between a check and an insert.
  await db.schema
    .createTable("webhook_event")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id").onDelete("cascade"))
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("delivery_id", "text")
    .addColumn("secret_version", "text")
    .addColumn("signed_with", "text", (c) => c.notNull().check(sql`signed_with in ('current', 'previous')`))
    .addColumn("signature_timestamp", "timestamptz", (c) => c.notNull())
    .addColumn("occurred_at", "timestamptz")
    .addColumn("subscription_id", "text")
    .addColumn("client_request_id", "text")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("parse_issues", "jsonb")
    .addColumn("status", "text", (c) =>
      c.notNull().defaultTo("pending").check(sql`status in ('pending', 'processed', 'failed', 'unprocessable')`),
    )
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_error", "text")
    .addColumn("effect", "jsonb")
    .addColumn("processed_at", "timestamptz")
    .addColumn("received_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("webhook_event_idempotency_key_unique", ["game_id", "idempotency_key"])
    // The same event reaching us twice under two keys (two registered endpoints, a replayed capture) is one event.
    .addUniqueConstraint("webhook_event_event_id_unique", ["game_id", "event_id"])
    .execute();
  await db.schema
    .createIndex("webhook_event_received_idx")
    .on("webhook_event")
    .columns(["game_id", "received_at"])
    .execute();
  await db.schema
    .createIndex("webhook_event_type_idx")
    .on("webhook_event")
    .columns(["game_id", "event_type", "received_at"])
    .execute();
  await db.schema
    .createIndex("webhook_event_subscription_idx")
    .on("webhook_event")
    .columns(["game_id", "subscription_id", "occurred_at"])
    .where(sql.ref("subscription_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("webhook_event_client_request_idx")
    .on("webhook_event")
    .columns(["game_id", "client_request_id"])
    .where(sql.ref("client_request_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("webhook_event_pending_idx")
    .on("webhook_event")
    .column("received_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();

  // Counters of every delivery by outcome, per game and UTC day. Refused deliveries leave only this (and a log line).
  // game_id is '' when the URL named no game we know, so a caller cannot create rows at will.
  await db.schema
    .createTable("webhook_delivery_count")
    .addColumn("game_id", "text", (c) => c.notNull())
    .addColumn("day", "date", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull().check(sql`outcome in ('accepted', 'duplicate', 'refused')`))
    .addColumn("reason", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("last_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("webhook_delivery_count_pk", ["game_id", "day", "outcome", "reason"])
    .execute();

  // Scheduled pulls already queued: one row per game, kind and period, written once the pull is queued, so a schedule
  // that fires again (hourly, a second process, a restart) skips it and a run that failed is made up by the next.
  await db.schema
    .createTable("scheduled_pull")
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('previous_month', 'current_month')`))
    .addColumn("period_key", "text", (c) => c.notNull())
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("pull_id", "text")
    .addColumn("queued_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("scheduled_pull_pk", ["game_id", "kind", "period_key"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("scheduled_pull").ifExists().execute();
  await db.schema.dropTable("webhook_delivery_count").ifExists().execute();
  await db.schema.dropTable("webhook_event").ifExists().execute();
}
