import { type Kysely, sql } from "kysely";

/**
 * Statement documents and their delivery.
 * - statement_counter: one row per game holding the last number given; the transaction that numbers statements
 *   locks it, so numbers run 1, 2, 3 … per game without gaps.
 * - statement_document: the number a statement was given (kept for good, whatever is rendered later).
 * - statement_delivery: every email of a statement (queued, sent, failed with the server's answer).
 * - statement_delivery_failure: recipients whose last delivery was finally refused.
 * - statement_link_revocation: signed links of a batch issued before this instant are refused.
 * - mail_message: what the built-in mail catcher received (the demo's outbox).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("statement_counter")
    .addColumn("game_id", "text", (c) => c.primaryKey().references("game.id"))
    .addColumn("last_number", "integer", (c) => c.notNull().check(sql`last_number >= 0`))
    .execute();
  await db.schema
    .createTable("statement_document")
    .addColumn("statement_id", "uuid", (c) => c.primaryKey().references("payout_statement.id"))
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("number", "integer", (c) => c.notNull().check(sql`number > 0`))
    .addColumn("numbered_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("statement_document_game_number", ["game_id", "number"])
    .execute();
  await db.schema
    .createTable("statement_delivery")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("game_id", "text", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("send_id", "uuid", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('queued', 'sent', 'failed')`))
    .addColumn("to_address", "text")
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("final", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("server_answer", "text")
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("statement_delivery_statement")
    .on("statement_delivery")
    .columns(["statement_id", "at"])
    .execute();
  await db.schema
    .createTable("statement_delivery_failure")
    .addColumn("game_id", "text", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("server_answer", "text", (c) => c.notNull())
    .addColumn("failed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("statement_delivery_failure_pk", ["game_id", "recipient_player_id"])
    .execute();
  await db.schema
    .createTable("statement_link_revocation")
    .addColumn("batch_id", "uuid", (c) => c.primaryKey().references("payout_batch.id"))
    .addColumn("revoked_at", "timestamptz", (c) => c.notNull())
    .addColumn("revoked_by_email", "text")
    .execute();
  await db.schema
    .createTable("mail_message")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("received_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("mail_from", "text")
    .addColumn("rcpt_to", "text", (c) => c.notNull())
    .addColumn("subject", "text")
    .addColumn("raw", "bytea", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "mail_message",
    "statement_link_revocation",
    "statement_delivery_failure",
    "statement_delivery",
    "statement_document",
    "statement_counter",
  ])
    await db.schema.dropTable(table).execute();
}
