import { type Kysely, sql } from "kysely";
import { MAILBOX_PATTERN } from "@/core/mailbox";

/**
 * The statements of a batch that no email can be sent to (no address, or one that is not a single mailbox), counted
 * on every view of a window (db/queries/statement-deliveries.ts, `countBatchEmails`) from this partial index. Its
 * predicate is the query's, with the pattern as text: were the pattern to change, the count stays right and reads the
 * batch's statements instead, until the index is made again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists payout_statement_unmailable_idx on payout_statement (batch_id)
    where player_email is null or player_email !~ ${sql.lit(MAILBOX_PATTERN.source)}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_statement_unmailable_idx`.execute(db);
}
