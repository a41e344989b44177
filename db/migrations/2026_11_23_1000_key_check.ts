import { type Kysely, sql } from "kysely";

// One row naming the key the sealed columns are sealed with, so that another PAYOUT_DESK_KEY is refused at start
// instead of failing on the first secret it tries to open.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("key_check")
    .addColumn("id", "boolean", (c) => c.primaryKey().defaultTo(true).check(sql`id`))
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("rotated_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("key_check").execute();
}
