import { type Kysely, sql } from "kysely";

/**
 * What keeps a refund from being made twice after an unknown outcome, and what a person's settlement records:
 * - `outcome_unknown`: some call of the attempt may have reached the service without a readable answer (no answer, a
 *   5xx that does not say nothing moved, a crash while holding it). From then on only a receipt or the period report
 *   may end it; any other answer hands it to a person.
 * - `claim_token`: who holds the attempt now; the holder renews its hold while its call runs, and only the holder may
 *   record an outcome other than a receipt.
 * - `resolution_outcome`: what the person who settled the attempt found (`refunded` or `not_refunded`). A settled
 *   attempt that refunded nothing frees its intent, like a refusal; one that refunded counts like a landed refund.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("refund_attempt")
    .addColumn("outcome_unknown", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("claim_token", "uuid")
    .addColumn("resolution_outcome", "text", (c) => c.check(sql`resolution_outcome in ('refunded', 'not_refunded')`))
    .execute();
  // Sent attempts still open may have reached the service: nothing says otherwise.
  await sql`update refund_attempt set outcome_unknown = true where status in ('pending', 'needs_attention') and calls
      > 0`.execute(db);
  // A settlement that found nothing refunded frees the intent; settlements from before this column keep it.
  await sql`drop index refund_attempt_intent_uq`.execute(db);
  await sql`create unique index refund_attempt_intent_uq on refund_attempt (game_id, intent_key)
    where status <> 'failed' and not (status = 'resolved' and resolution_outcome is not distinct from
    'not_refunded')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index refund_attempt_intent_uq`.execute(db);
  await sql`create unique index refund_attempt_intent_uq on refund_attempt (game_id, intent_key) where status <>
      'failed'`.execute(db);
  await db.schema
    .alterTable("refund_attempt")
    .dropColumn("resolution_outcome")
    .dropColumn("claim_token")
    .dropColumn("outcome_unknown")
    .execute();
}
