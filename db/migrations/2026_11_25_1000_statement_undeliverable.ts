import type { Kysely } from "kysely";

/**
 * A statement email the mail server finally refused raises `statement_undeliverable` on the recipient's payout
 * profile (lib/profiles/flags.ts): statement_delivery_failure now keeps the address refused (the flag goes once the
 * recipient's email on record is another) and whether the server refused it for good (a 5xx answer) rather than
 * failing for a reason of our own (no mail server, a timeout), which keeps the banner but raises no flag.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("statement_delivery_failure").addColumn("to_address", "text").execute();
  await db.schema
    .alterTable("statement_delivery_failure")
    .addColumn("refused", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("statement_delivery_failure").dropColumn("refused").execute();
  await db.schema.alterTable("statement_delivery_failure").dropColumn("to_address").execute();
}
