import { type Kysely, sql } from "kysely";

/**
 * subscription_change_hold: one change of a subscription at a time on every instance (lib/refunds/changes.ts). A
 * change holds its subscription's row from its check of what the page showed to the service's answer, until
 * `held_until`: a second change meanwhile is refused, nothing sent. A hold whose process died lapses on its own.
 * A table of its own: earlier instances keep working.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table if not exists subscription_change_hold (
    game_id text not null,
    subscription_id text not null,
    token uuid not null,
    held_until timestamptz not null,
    primary key (game_id, subscription_id)
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists subscription_change_hold`.execute(db);
}
