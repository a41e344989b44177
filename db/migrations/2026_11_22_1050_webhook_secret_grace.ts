import { type Kysely, sql } from "kysely";

// The service: a rotated signing secret keeps working "with a 7-day grace window"; after it the previous secret
// must stop verifying deliveries here too.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("game").addColumn("webhook_previous_expires_at", "timestamptz").execute();
  await sql`update game set webhook_previous_expires_at = now() + interval '7 days'
    where webhook_previous_secret_sealed is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("game").dropColumn("webhook_previous_expires_at").execute();
}
