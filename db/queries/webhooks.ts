import "server-only";
import { sql } from "kysely";
import type { Db, DbOrTrx } from "@/db";
import type { WebhookEventStatus } from "@/db/types";
import { type GameAutomation, readAutomation } from "@/core/game-automation";
import { camelRow } from "./camel-row";
import { waitingAtMost } from "./locks";

// --- Processing ---------------------------------------------------------------------------------------------------

/**
 * Locks one event row until the end of the transaction (a second worker on the same event waits, then sees it
 * done), waiting at most `waitMs`: "busy" when the row stays locked that long, the transaction then aborted (its
 * caller leaves it).
 */
export async function lockWebhookEvent(trx: Db, id: string, waitMs: number) {
  const row = await waitingAtMost(trx, waitMs, () =>
    trx
      .selectFrom("webhook_event")
      .select(["id", "game_id", "event_type", "body", "status", "attempts", "effect"])
      .where("id", "=", id)
      .forUpdate()
      .executeTakeFirst(),
  );
  if (row === "timed_out") return "busy" as const;
  return row ? camelRow(row) : null;
}

export async function completeWebhookEvent(
  trx: Db,
  id: string,
  result: { status: "processed" | "unprocessable"; effect: Record<string, unknown>; at?: Date },
): Promise<void> {
  await trx
    .updateTable("webhook_event")
    .set((eb) => ({
      status: result.status,
      effect: JSON.stringify(result.effect),
      processed_at: result.at ?? new Date(),
      attempts: eb("attempts", "+", 1),
      last_error: null,
    }))
    .where("id", "=", id)
    .execute();
}

/** Records the pulls queued for the windows an event made stale; the event no longer owes them. */
export async function recordRepulls(
  db: Db,
  id: string,
  repulls: { start: string; end: string; pullId: string }[],
  /** Whether the event still owes a pull (one found was already reading): the sweep asks again. */
  repullDue = false,
): Promise<void> {
  await db
    .updateTable("webhook_event")
    .set({ effect: sql`coalesce(effect, '{}'::jsonb) || ${JSON.stringify({ repulls, repullDue })}::jsonb` })
    .where("id", "=", id)
    .execute();
}

/**
 * Records a failed try; the try that reaches `maxAttempts` marks the event failed, so that the sweep stops queuing
 * it.
 */
export async function recordWebhookEventFailure(
  db: Db,
  id: string,
  input: { error: string; maxAttempts: number },
): Promise<{ attempts: number; status: WebhookEventStatus } | null> {
  const row = await db
    .updateTable("webhook_event")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      last_error: input.error.slice(0, 1_000),
      status: sql<WebhookEventStatus>`case when attempts + 1 >= ${input.maxAttempts} then 'failed' else status end`,
    }))
    .where("id", "=", id)
    .where("status", "=", "pending")
    .returning(["attempts", "status"])
    .executeTakeFirst();
  return row ?? null;
}

/**
 * A failed event back in the queue's hands (a person asked for it after fixing the cause), with every try again: the
 * error and the tries it had, or undefined when it was not failed.
 */
export async function resetWebhookEvent(
  db: DbOrTrx,
  gameId: string,
  id: string,
): Promise<{ lastError: string | null; attempts: number } | undefined> {
  const result = await sql<{ last_error: string | null; attempts: number }>`update webhook_event w
      set status = 'pending', last_error = null, attempts = 0
      from (select id, last_error, attempts from webhook_event
        where id = ${id} and game_id = ${gameId} and status = 'failed' for update) as before
      where w.id = before.id
      returning before.last_error, before.attempts`.execute(db);
  const row = result.rows[0];
  return row ? { lastError: row.last_error, attempts: row.attempts } : undefined;
}

/**
 * Events still pending a while after they arrived (their job was never queued, a crash, or was lost), and processed
 * events whose re-pulls could not be queued, oldest first. Each kind is read by its own partial index: the events
 * processed as they should be, nearly all of them, are never read.
 */
export async function listStalledWebhookEventIds(db: Db, input: { receivedBefore: Date; limit: number }) {
  const [pending, repullDue] = await Promise.all([
    db
      .selectFrom("webhook_event")
      .select(["id", "received_at"])
      .where("status", "=", "pending")
      .where("received_at", "<", input.receivedBefore)
      .orderBy("received_at")
      .limit(input.limit)
      .execute(),
    db
      .selectFrom("webhook_event")
      .select(["id", "received_at"])
      .where("status", "=", "processed")
      .where(sql`effect->>'repullDue'`, "=", "true")
      .where("processed_at", "<", input.receivedBefore)
      .orderBy("received_at")
      .limit(input.limit)
      .execute(),
  ]);
  const ids = [...pending, ...repullDue]
    .sort((a, b) => a.received_at.getTime() - b.received_at.getTime())
    .slice(0, input.limit)
    .map((r) => r.id);
  return { ids, pending: pending.length };
}

// --- Settings and scheduled pulls ---------------------------------------------------------------------------------

/** A game's automatic pulls; with `lock`, the game's row locked until the transaction ends. */
export async function readGameAutomation(
  db: DbOrTrx,
  gameId: string,
  options: { lock?: boolean } = {},
): Promise<GameAutomation | null> {
  const query = db.selectFrom("game").select("settings").where("id", "=", gameId);
  const row = await (options.lock ? query.forUpdate() : query).executeTakeFirst();
  return row ? readAutomation(row.settings) : null;
}

/** Replaces `settings.automation` and leaves the game's other settings as they are. */
export async function updateGameAutomation(db: DbOrTrx, gameId: string, automation: GameAutomation): Promise<boolean> {
  const result = await db
    .updateTable("game")
    .set({
      settings: sql`settings || jsonb_build_object('automation', ${JSON.stringify(automation)}::jsonb)`,
      updated_at: new Date(),
    })
    .where("id", "=", gameId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listGameAutomations(db: Db): Promise<{ gameId: string; automation: GameAutomation }[]> {
  const rows = await db.selectFrom("game").select(["id", "settings"]).orderBy("id").execute();
  return rows.map((r) => ({ gameId: r.id, automation: readAutomation(r.settings) }));
}

type ScheduledPullKey = { gameId: string; kind: "previous_month" | "current_month"; periodKey: string };

/**
 * Whether the scheduled pull of this game, kind and period is taken care of: recorded, and its pull has not failed
 * (one that failed for good, the service down at the month's close, is asked for again by the next run).
 */
export async function isScheduledPullClaimed(db: Db, key: ScheduledPullKey): Promise<boolean> {
  const row = await db
    .selectFrom("scheduled_pull as s")
    .select("s.period_key")
    .where("s.game_id", "=", key.gameId)
    .where("s.kind", "=", key.kind)
    .where("s.period_key", "=", key.periodKey)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("snapshot_pull as p")
            .select("p.id")
            .where(sql<boolean>`p.id::text = s.pull_id`)
            .where("p.status", "=", "failed"),
        ),
      ),
    )
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Records a queued scheduled pull, or the pull asked for again in place of one that failed; false when another run
 * recorded the same game, kind and period first (with a pull that has not failed).
 */
export async function recordScheduledPull(
  db: Db,
  input: ScheduledPullKey & { window: { startMs: number; endMs: number }; pullId: string },
): Promise<boolean> {
  const row = await db
    .insertInto("scheduled_pull")
    .values({
      game_id: input.gameId,
      kind: input.kind,
      period_key: input.periodKey,
      window_start: new Date(input.window.startMs),
      window_end: new Date(input.window.endMs),
      pull_id: input.pullId,
    })
    .onConflict((oc) =>
      oc
        .columns(["game_id", "kind", "period_key"])
        .doUpdateSet({ pull_id: input.pullId })
        .where(sql<boolean>`exists (select 1 from snapshot_pull p
          where p.id::text = scheduled_pull.pull_id and p.status = 'failed')`),
    )
    .returning("period_key")
    .executeTakeFirst();
  return row !== undefined;
}

export async function listScheduledPulls(
  db: Db,
  gameId: string,
  limit = 10,
): Promise<{ kind: string; periodKey: string; windowStart: string; windowEnd: string; queuedAt: string }[]> {
  const rows = await db
    .selectFrom("scheduled_pull")
    .select(["kind", "period_key", "window_start", "window_end", "queued_at"])
    .where("game_id", "=", gameId)
    .orderBy("queued_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    kind: r.kind,
    periodKey: r.period_key,
    windowStart: r.window_start.toISOString(),
    windowEnd: r.window_end.toISOString(),
    queuedAt: r.queued_at.toISOString(),
  }));
}
