import { type Kysely, sql } from "kysely";

/**
 * A recipient's first payout details (the only changes applied at once, status 'applied'), by who entered them: the
 * two-person rule keeps that person from approving a batch that pays them before anyone else has seen them
 * (db/queries/profile-changes.ts, listOwnFirstDetails). Index only: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists payout_profile_change_first_by_idx
    on payout_profile_change (game_id, entered_by_id) where status = 'applied'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_profile_change_first_by_idx`.execute(db);
}
