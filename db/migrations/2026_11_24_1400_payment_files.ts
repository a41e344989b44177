import { type Kysely, sql } from "kysely";

/**
 * Payment files: what was written for a provider (PayPal, Wise, ISO 20022, generic), which statements each file
 * pays, and the results read back from the provider.
 *
 * - A statement is never in two live files: each item carries its file's status (a composite foreign key to
 *   payment_file(id, status) with ON UPDATE CASCADE keeps it equal), and a partial unique index allows one
 *   item per statement whose file is live.
 * - Importing the same results twice changes nothing: one result per (statement, provider transaction id,
 *   outcome), nulls not distinct.
 * - payout_statement.provider_reference: the reference sent to providers (lib/payments/reference.ts), unique per
 *   game. A new column because payment_reference holds what the person marking a statement paid typed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("payment_file")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("batch_id", "uuid", (c) => c.notNull().references("payout_batch.id"))
    .addColumn("method", "text", (c) => c.notNull().check(sql`method in ('paypal', 'wise', 'pain001', 'generic')`))
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("part", "integer", (c) => c.notNull().check(sql`part >= 1`))
    .addColumn("part_count", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull().check(sql`currency ~ '^[A-Z]{3}$'`))
    .addColumn("eur_rate", "numeric", (c) => c.check(sql`eur_rate > 0 and scale(eur_rate) <= 8`))
    .addColumn("rate_source", "text")
    .addColumn("execution_date", "date")
    .addColumn("status", "text", (c) =>
      c.notNull().defaultTo("live").check(sql`status in ('live', 'cancelled', 'completed')`),
    )
    .addColumn("sha256", "text", (c) => c.notNull().check(sql`sha256 ~ '^[0-9a-f]{64}$'`))
    .addColumn("created_by_id", "text", (c) => c.notNull())
    .addColumn("created_by_email", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("row_count", "integer", (c) => c.notNull().check(sql`row_count > 0`))
    .addColumn("total_usd", "numeric", (c) => c.notNull().check(sql`total_usd > 0`))
    .addColumn("total_amount", "numeric", (c) => c.notNull().check(sql`total_amount > 0`))
    .addColumn("cancelled_at", "timestamptz")
    .addColumn("cancelled_by_email", "text")
    .addColumn("cancel_reason", "text")
    .addCheckConstraint("payment_file_part_in_count", sql`part <= part_count`)
    .addCheckConstraint("payment_file_rate_with_source", sql`(eur_rate is null) = (rate_source is null)`)
    .addCheckConstraint(
      "payment_file_cancelled_fields",
      sql`(status = 'cancelled') = (cancelled_at is not null and cancel_reason is not null)`,
    )
    .addUniqueConstraint("payment_file_id_status", ["id", "status"])
    .execute();
  await db.schema
    .createIndex("payment_file_batch_idx")
    .on("payment_file")
    .columns(["game_id", "batch_id", "created_at"])
    .execute();

  await db.schema
    .createTable("payment_file_item")
    .addColumn("file_id", "uuid", (c) => c.notNull())
    .addColumn("file_status", "text", (c) => c.notNull())
    .addColumn("game_id", "text", (c) => c.notNull())
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("reference", "text", (c) => c.notNull().check(sql`reference ~ '^[A-Z0-9-]{1,35}$'`))
    .addColumn("amount_usd", "numeric", (c) => c.notNull().check(sql`amount_usd > 0`))
    .addColumn("amount_currency", "numeric", (c) => c.notNull().check(sql`amount_currency > 0`))
    .addColumn("currency", "text", (c) => c.notNull().check(sql`currency ~ '^[A-Z]{3}$'`))
    .addPrimaryKeyConstraint("payment_file_item_pk", ["file_id", "statement_id"])
    .addUniqueConstraint("payment_file_item_reference", ["file_id", "reference"])
    .addForeignKeyConstraint(
      "payment_file_item_file",
      ["file_id", "file_status"],
      "payment_file",
      ["id", "status"],
      (fk) => fk.onUpdate("cascade"),
    )
    .execute();
  await sql`create unique index payment_file_item_one_live on payment_file_item (statement_id)
    where file_status = 'live'`.execute(db);
  await db.schema
    .createIndex("payment_file_item_reference_idx")
    .on("payment_file_item")
    .columns(["game_id", "reference"])
    .execute();

  await db.schema
    .createTable("payment_result")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("file_id", "uuid", (c) => c.notNull().references("payment_file.id"))
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("reference", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull().check(sql`outcome in ('paid', 'pending', 'rejected', 'returned')`))
    .addColumn("provider_transaction_id", "text")
    .addColumn("amount", "numeric")
    .addColumn("currency", "text")
    .addColumn("fee", "numeric", (c) => c.check(sql`fee >= 0`))
    .addColumn("reason", "text")
    .addColumn("raw_status", "text", (c) => c.notNull())
    .addColumn("source_sha256", "text", (c) => c.notNull().check(sql`source_sha256 ~ '^[0-9a-f]{64}$'`))
    .addColumn("imported_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`alter table payment_result add constraint payment_result_once
    unique nulls not distinct (statement_id, provider_transaction_id, outcome)`.execute(db);
  await db.schema.createIndex("payment_result_file_idx").on("payment_result").column("file_id").execute();

  await db.schema.alterTable("payout_statement").addColumn("provider_reference", "text").execute();
  await sql`create unique index payout_statement_provider_reference on payout_statement (game_id, provider_reference)
    where provider_reference is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_statement_provider_reference`.execute(db);
  await db.schema.alterTable("payout_statement").dropColumn("provider_reference").execute();
  await db.schema.dropTable("payment_result").ifExists().execute();
  await db.schema.dropTable("payment_file_item").ifExists().execute();
  await db.schema.dropTable("payment_file").ifExists().execute();
}
