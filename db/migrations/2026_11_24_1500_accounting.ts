import { type Kysely, sql } from "kysely";

// Accounting: the ledger account each of Payout Desk's accounts posts to (per game), whether a paid window is closed,
// and the year-end reporting threshold per calendar year.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("accounting_account_map")
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id").onDelete("cascade"))
    .addColumn("account", "text", (c) =>
      c.notNull().check(sql`account in ('expense', 'payable', 'clearing', 'returns')`),
    )
    .addColumn("code", "text", (c) => c.notNull().check(sql`length(code) between 1 and 150`))
    .addColumn("tax_rate", "text", (c) => c.check(sql`tax_rate is null or length(tax_rate) between 1 and 100`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_by_email", "text")
    .addPrimaryKeyConstraint("accounting_account_map_pk", ["game_id", "account"])
    .execute();

  await db.schema
    .createTable("payout_window_closing")
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id").onDelete("cascade"))
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("batch_id", "uuid", (c) => c.notNull().references("payout_batch.id"))
    .addColumn("closed", "boolean", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull().check(sql`length(reason) between 1 and 1000`))
    .addColumn("changed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("changed_by_email", "text")
    .addPrimaryKeyConstraint("payout_window_closing_pk", ["game_id", "window_start", "window_end"])
    .execute();

  await db.schema
    .createTable("payee_reporting_threshold")
    .addColumn("year", "integer", (c) => c.primaryKey().check(sql`year between 2000 and 2999`))
    .addColumn("amount_usd", "numeric(14, 2)", (c) => c.notNull().check(sql`amount_usd >= 0`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_by_email", "text")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("payee_reporting_threshold").execute();
  await db.schema.dropTable("payout_window_closing").execute();
  await db.schema.dropTable("accounting_account_map").execute();
}
