import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";

/** What receiving a delivery reads and writes before the event itself: signing secrets and refusal counters. */

export type RefusalCount = { gameId: string; day: string; reason: string; count: number; lastAt: Date };

/**
 * Adds refusal counts gathered in memory, in one statement. Counts under a game id that names no game go under ''
 * (a caller cannot create rows at will).
 */
export async function addWebhookRefusalCounts(db: Db, counts: RefusalCount[]): Promise<void> {
  if (counts.length === 0) return;
  await sql`
    insert into webhook_delivery_count (game_id, day, outcome, reason, count, last_at)
    select coalesce(g.id, ''), v.day, 'refused', v.reason, sum(v.count), max(v.last_at)
    from unnest(${counts.map((c) => c.gameId)}::text[], ${counts.map((c) => c.day)}::date[], ${counts.map((c) => c.reason)}::text[],
                ${counts.map((c) => c.count)}::bigint[], ${counts.map((c) => c.lastAt.toISOString())}::timestamptz[])
      as v(game_id, day, reason, count, last_at)
    left join game g on g.id = v.game_id
    group by coalesce(g.id, ''), v.day, v.reason
    on conflict (game_id, day, outcome, reason) do update set
      count = webhook_delivery_count.count + excluded.count,
      last_at = greatest(webhook_delivery_count.last_at, excluded.last_at)`.execute(db);
}

export type SealedSigningSecrets = { current: string | null; previous: string | null; previousExpiresAt: Date | null };

/** A game's webhook signing secrets as stored (sealed); null when no such game. */
export async function findWebhookSigningSecrets(db: Db, gameId: string): Promise<SealedSigningSecrets | null> {
  const row = await db
    .selectFrom("game")
    .select(["webhook_secret_sealed", "webhook_previous_secret_sealed", "webhook_previous_expires_at"])
    .where("id", "=", gameId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    current: row.webhook_secret_sealed,
    previous: row.webhook_previous_secret_sealed,
    previousExpiresAt: row.webhook_previous_expires_at,
  };
}
