import "server-only";
import { type Expression, type SelectQueryBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { Database } from "@/db/types";
import { camelRow } from "./camel-row";
import type { RowOf } from "./row-of";

/** Reads behind payout flags: the cause of a stale snapshot and the overrides kept with a batch. */

export type StaleMarkRow = { id: string; markedAt: Date; reason: string };

/**
 * The newest stale mark inside a window made after `after` (the moment a snapshot began reading): the cause of that
 * snapshot's stale flag. A newer mark is a new cause.
 */
export async function getLatestStaleMark(
  db: DbOrTrx,
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

const CHANGE_TYPES = ["subscription.refunded", "subscription.renewed"] as const;

/** Where a change's bounds come from: values, or a snapshot's columns (a subquery beside each snapshot read). */
export type ChangeBounds = {
  gameId: Expression<string>;
  windowStart: Expression<Date>;
  windowEnd: Expression<Date>;
  after: Expression<Date>;
};

/** Refunds and renewals of the game inside the window (by when they happened), received after `after`. */
export function changesReceivedSince<O>(
  query: SelectQueryBuilder<Database, "webhook_event", O>,
  bounds: ChangeBounds,
): SelectQueryBuilder<Database, "webhook_event", O> {
  const eventTime = sql<Date>`coalesce(webhook_event.occurred_at, webhook_event.received_at)`;
  return query
    .where("webhook_event.game_id", "=", bounds.gameId)
    .where("webhook_event.event_type", "in", CHANGE_TYPES)
    .where("webhook_event.received_at", ">", bounds.after)
    .where(eventTime, ">=", bounds.windowStart)
    .where(eventTime, "<", bounds.windowEnd);
}

/** The changes of `changesReceivedSince` not processed yet: waiting for a worker, or failed. */
export function unprocessedChanges<O>(
  query: SelectQueryBuilder<Database, "webhook_event", O>,
  bounds: ChangeBounds,
): SelectQueryBuilder<Database, "webhook_event", O> {
  return changesReceivedSince(query, bounds).where("webhook_event.status", "in", ["pending", "failed"]);
}

/**
 * The latest refund or renewal of the game inside the window received after `after` (processed or not): the cause of a
 * flag for those not processed yet, so that processing an older one never makes the flag new again.
 */
export async function findLatestChangeSince(
  db: DbOrTrx,
  params: { gameId: string; windowStart: Date; windowEnd: Date; after: Date },
): Promise<{ id: string; receivedAt: Date } | null> {
  const bounds: ChangeBounds = {
    gameId: sql.val(params.gameId),
    windowStart: sql.val(params.windowStart),
    windowEnd: sql.val(params.windowEnd),
    after: sql.val(params.after),
  };
  const latest = await changesReceivedSince(db.selectFrom("webhook_event"), bounds)
    .select(["id", "received_at"])
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return latest ? { id: String(latest.id), receivedAt: latest.received_at } : null;
}

export async function listFlagOverrideRows(db: DbOrTrx, params: { gameId: string; batchId: string }) {
  const rows = await db
    .selectFrom("payout_flag_override")
    .select(["flag", "recipient_player_id", "cause", "raised_at", "reason", "actor_email", "at"])
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId)
    .orderBy("at")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    ...camelRow(r),
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
  }));
}

export type FlagOverrideRow = RowOf<typeof listFlagOverrideRows>;

/** The flags a statement was prepared with, or null when the recipient has no statement in the batch. */
export async function getStatementRecipientFlags(
  db: DbOrTrx,
  params: { batchId: string; recipientPlayerId: number },
): Promise<string[] | null> {
  const row = await db
    .selectFrom("payout_statement")
    .select("recipient_flags")
    .where("batch_id", "=", params.batchId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row ? row.recipient_flags : null;
}

export async function insertFlagOverride(
  db: DbOrTrx,
  params: {
    batchId: string;
    gameId: string;
    recipientPlayerId: number | null;
    flag: string;
    cause: string;
    raisedAt: Date | null;
    reason: string;
    actor: { id: string; email: string } | null;
  },
): Promise<void> {
  await db
    .insertInto("payout_flag_override")
    .values({
      batch_id: params.batchId,
      game_id: params.gameId,
      recipient_player_id: params.recipientPlayerId,
      flag: params.flag,
      cause: params.cause,
      raised_at: params.raisedAt,
      reason: params.reason,
      actor_id: params.actor?.id ?? "",
      actor_email: params.actor?.email ?? "",
    })
    .execute();
}
