import { type Kysely, sql } from "kysely";

/**
 * Who issued a statement, as it was when the statement was first emailed: a rename of the studio later does not
 * change a statement its recipient already has. Null until then (and for statements emailed before this migration,
 * which keep being drawn with the current settings).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table statement_document add column if not exists issuer_name text,
    add column if not exists issuer_address text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table statement_document drop column if exists issuer_address,
    drop column if exists issuer_name`.execute(db);
}
