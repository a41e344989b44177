import "server-only";
import type { Db } from "@/db";

/** Reads behind payout flags: the cause of a stale snapshot and the overrides kept with a batch. */

export type StaleMarkRow = { id: string; markedAt: Date; reason: string };

/**
 * The newest stale mark inside a window made after `after` (the moment a snapshot began reading): the cause of that
 * snapshot's stale flag. A newer mark is a new cause.
 */
export async function getLatestStaleMark(
  db: Db,
  params: { gameId: string; windowStart: Date; windowEnd: Date; after: Date },
): Promise<StaleMarkRow | null> {
  const row = await db
    .selectFrom("snapshot_stale_mark")
    .select(["id", "marked_at", "reason"])
    .where("game_id", "=", params.gameId)
    .where("instant", ">=", params.windowStart)
    .where("instant", "<", params.windowEnd)
    .where("marked_at", ">", params.after)
    .orderBy("marked_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { id: String(row.id), markedAt: row.marked_at, reason: row.reason } : null;
}

export type FlagOverrideRow = {
  flag: string;
  recipientPlayerId: number | null;
  cause: string;
  raisedAt: Date | null;
  reason: string;
  actorEmail: string;
  at: Date;
};

export async function listFlagOverrideRows(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<FlagOverrideRow[]> {
  const rows = await db
    .selectFrom("payout_flag_override")
    .select(["flag", "recipient_player_id", "cause", "raised_at", "reason", "actor_email", "at"])
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId)
    .orderBy("at")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    flag: r.flag,
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
    cause: r.cause,
    raisedAt: r.raised_at,
    reason: r.reason,
    actorEmail: r.actor_email,
    at: r.at,
  }));
}
