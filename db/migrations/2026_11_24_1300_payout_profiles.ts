import { type Kysely, sql } from "kysely";

// Payout profiles: how and in what currency a recipient of a game is paid, and the tax form on file. Details are
// sealed (lib/crypto.ts) with a context naming the game and the recipient, taken from `seal_ref`; only a masked
// display string is kept in the clear. Every change is a row of payout_profile_change: the first details apply at
// once, later ones wait for a second finance user's review.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("payout_profile")
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("player_id", "bigint", (c) => c.notNull())
    .addColumn("seal_ref", "text", (c) => c.generatedAlwaysAs(sql`game_id || ':' || player_id::text`).stored())
    .addColumn("method", "text", (c) => c.check(sql`method in ('paypal', 'wise', 'bank_transfer', 'manual')`))
    .addColumn("currency", "text", (c) => c.check(sql`currency ~ '^[A-Z]{3}$'`))
    .addColumn("details_sealed", "text")
    .addColumn("details_masked", "text")
    .addColumn("details_change_id", "uuid")
    .addColumn("details_version", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("details_applied_at", "timestamptz")
    .addColumn("tax_form", "text", (c) =>
      c.notNull().defaultTo("none").check(sql`tax_form in ('W-9', 'W-8BEN', 'W-8BEN-E', 'none')`),
    )
    .addColumn("tax_form_received_on", "date")
    .addColumn("tax_form_expires_on", "date")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("payout_profile_pk", ["game_id", "player_id"])
    .addUniqueConstraint("payout_profile_seal_ref_key", ["seal_ref"])
    .addCheckConstraint("payout_profile_details_whole", sql`(method is null) = (details_masked is null)`)
    .execute();

  await db.schema
    .createTable("payout_profile_change")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("player_id", "bigint", (c) => c.notNull())
    .addColumn("seal_ref", "text", (c) =>
      c.generatedAlwaysAs(sql`game_id || ':' || player_id::text || ':' || id::text`).stored(),
    )
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('details', 'tax_form')`))
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status in ('applied', 'pending', 'approved', 'rejected', 'superseded')`),
    )
    .addColumn("method", "text")
    .addColumn("currency", "text")
    // Only while pending: applied details live on the profile, rejected ones are dropped.
    .addColumn("details_sealed", "text")
    .addColumn("details_masked", "text")
    .addColumn("previous_masked", "text")
    .addColumn("tax_form", "text")
    .addColumn("tax_form_received_on", "date")
    .addColumn("tax_form_expires_on", "date")
    .addColumn("entered_by_id", "text")
    .addColumn("entered_by_email", "text")
    .addColumn("entered_via", "text", (c) => c.notNull().check(sql`entered_via in ('web', 'cli', 'job')`))
    .addColumn("entered_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("reviewed_by_id", "text")
    .addColumn("reviewed_by_email", "text")
    .addColumn("reviewed_via", "text")
    .addColumn("reviewed_at", "timestamptz")
    .addColumn("review_note", "text")
    .addUniqueConstraint("payout_profile_change_seal_ref_key", ["seal_ref"])
    .addCheckConstraint("payout_profile_change_sealed_while_pending", sql`details_sealed is null or status = 'pending'`)
    .execute();
  await db.schema
    .createIndex("payout_profile_change_recipient")
    .on("payout_profile_change")
    .columns(["game_id", "player_id", "entered_at"])
    .execute();
  // One pending change per recipient: a newer entry supersedes the one waiting.
  await sql`create unique index payout_profile_change_one_pending on payout_profile_change (game_id, player_id)
    where status = 'pending'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("payout_profile_change").execute();
  await db.schema.dropTable("payout_profile").execute();
}
