import { type Kysely, sql } from "kysely";

// Each audit line says through what the change came: the web app, the command line or a background job.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("audit_log")
    .addColumn("via", "text", (c) => c.notNull().defaultTo("web").check(sql`via in ('web', 'cli', 'job')`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("audit_log").dropColumn("via").execute();
}
