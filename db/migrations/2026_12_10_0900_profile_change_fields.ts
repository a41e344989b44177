import { type Kysely, sql } from "kysely";

/**
 * Which fields of the payout details a change alters (their names, never their values): a change of the account holder
 * alone, or of an IBAN ending in the same four characters, reads the same as the details in force in their masked
 * form, and the reviewer is told what changed. Null for tax forms, first details and changes entered before. A column
 * an earlier release neither writes nor reads: it runs beside this one; re-runnable.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_profile_change add column if not exists changed_fields text[]`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_profile_change drop column if exists changed_fields`.execute(db);
}
