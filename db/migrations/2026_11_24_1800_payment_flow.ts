import { type Kysely, sql } from "kysely";

/**
 * Closing the money-out loop (README "Paying recipients"):
 *
 * - Statement states in_payment (in a live payment file, `payment_file_id` names it) and returned (a paid payment
 *   came back; owed again).
 * - payment_file keeps what was written, sealed (it holds bank details), so a re-download gives the same bytes and
 *   the same SHA-256 even after a recipient's details change; `media_type` says how to serve it.
 * - payment_file_item.settled: the provider paid or rejected the item. "A statement is never in two live files" now
 *   reads "never in two open items" (live file, not settled), so a rejected statement can go into a new file while
 *   the rest of its old file is still being paid.
 * - payment_return: each rejected or returned payment, with what the payment was. One per result read from a
 *   provider (a file imported twice adds nothing).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_statement drop constraint payout_statement_state_check`.execute(db);
  await sql`alter table payout_statement add constraint payout_statement_state_check
    check (state in ('draft', 'approved', 'held', 'in_payment', 'paid', 'returned', 'carried'))`.execute(db);
  await db.schema
    .alterTable("payout_statement")
    .addColumn("payment_file_id", "uuid", (c) => c.references("payment_file.id"))
    .execute();
  await db.schema.alterTable("payment_file").addColumn("content_sealed", "text").execute();
  await db.schema
    .alterTable("payment_file_item")
    .addColumn("settled", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
  // Same name, narrower: one open item per statement.
  await sql`drop index payment_file_item_one_live`.execute(db);
  await sql`create unique index payment_file_item_one_live on payment_file_item (statement_id)
    where file_status = 'live' and not settled`.execute(db);
  await db.schema
    .alterTable("payment_file")
    .addColumn("media_type", "text", (c) => c.notNull().defaultTo("text/csv"))
    .execute();

  await db.schema
    .createTable("payment_return")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("batch_id", "uuid", (c) => c.notNull().references("payout_batch.id"))
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('rejected', 'returned')`))
    .addColumn("amount_usd", "numeric", (c) => c.notNull().check(sql`amount_usd > 0`))
    .addColumn("reason", "text", (c) => c.notNull().check(sql`length(btrim(reason)) > 0`))
    .addColumn("file_id", "uuid", (c) => c.references("payment_file.id"))
    .addColumn("result_id", "bigint", (c) => c.references("payment_result.id").unique())
    .addColumn("paid_at", "timestamptz")
    .addColumn("paid_on", "date")
    .addColumn("payment_method", "text")
    .addColumn("payment_reference", "text")
    .addColumn("paid_by_id", "text")
    .addColumn("actor_id", "text")
    .addColumn("actor_email", "text")
    .addColumn("via", "text", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      "payment_return_paid_fields",
      sql`kind <> 'returned' or (paid_at is not null and paid_on is not null)`,
    )
    .execute();
  await db.schema
    .createIndex("payment_return_recipient_idx")
    .on("payment_return")
    .columns(["game_id", "recipient_player_id", "at"])
    .execute();
  await db.schema.createIndex("payment_return_statement_idx").on("payment_return").column("statement_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("payment_return").ifExists().execute();
  await sql`drop index payment_file_item_one_live`.execute(db);
  await db.schema.alterTable("payment_file_item").dropColumn("settled").execute();
  await sql`create unique index payment_file_item_one_live on payment_file_item (statement_id)
    where file_status = 'live'`.execute(db);
  await db.schema.alterTable("payment_file").dropColumn("media_type").execute();
  await db.schema.alterTable("payment_file").dropColumn("content_sealed").execute();
  await db.schema.alterTable("payout_statement").dropColumn("payment_file_id").execute();
  await sql`alter table payout_statement drop constraint payout_statement_state_check`.execute(db);
  await sql`alter table payout_statement add constraint payout_statement_state_check
    check (state in ('draft', 'approved', 'held', 'paid', 'carried'))`.execute(db);
}
