import { type Kysely, sql } from "kysely";

/**
 * Downloads through statement links, counted per statement over an hour from the first of them
 * (lib/statements/link-download.ts): a link is a public address, and each download renders the PDF and writes an audit
 * line, so past a limit in that hour it is refused until the hour is over. Hours over are pruned hourly.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("statement_link_download")
    .ifNotExists()
    .addColumn("statement_id", "uuid", (c) => c.notNull())
    .addColumn("since", "timestamptz", (c) => c.notNull())
    .addColumn("downloads", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("statement_link_download_pkey", ["statement_id"])
    .execute();
  await sql`create index if not exists statement_link_download_since_idx on statement_link_download (since)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("statement_link_download").ifExists().execute();
}
