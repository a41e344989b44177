import "server-only";
import { sql } from "kysely";
import type { DbOrTrx, Trx } from "@/db";
import { countRows } from "./paging";

/**
 * Processing stored webhook events in chunks (lib/webhooks/drain.ts): a chunk of pending events is claimed with
 * FOR UPDATE SKIP LOCKED, so that drains running at once in several workers each take other events, and completed in
 * one statement inside the same transaction.
 */

export type ClaimedWebhookEvent = { id: string; gameId: string; body: string };

/**
 * Locks up to `limit` pending events, oldest first, skipping those another transaction holds. An event committed as
 * processed by another run meanwhile is re-checked under the lock and not returned.
 */
export async function claimPendingWebhookEvents(
  trx: Trx,
  input: { limit: number; excludeIds?: string[] },
): Promise<ClaimedWebhookEvent[]> {
  let query = trx
    .selectFrom("webhook_event")
    .select(["id", "game_id", "body"])
    .where("status", "=", "pending")
    // The partial index on pending events (received_at) finds them; id breaks ties.
    .orderBy("received_at")
    .orderBy("id")
    .limit(input.limit)
    .forUpdate()
    .skipLocked();
  if (input.excludeIds && input.excludeIds.length > 0) query = query.where("id", "not in", input.excludeIds);
  const rows = await query.execute();
  return rows.map((r) => ({ id: r.id, gameId: r.game_id, body: r.body }));
}

export type WebhookEventCompletion = {
  id: string;
  status: "processed" | "unprocessable";
  effect: Record<string, unknown>;
};

/** Completes many events in one statement (each keeps its own effect); only events still pending are changed. */
export async function completeWebhookEvents(trx: Trx, completions: WebhookEventCompletion[]): Promise<number> {
  if (completions.length === 0) return 0;
  const rows = JSON.stringify(completions);
  const result = await sql`
    update webhook_event as e
       set status = v.status, effect = v.effect, processed_at = clock_timestamp(), attempts = e.attempts + 1,
           last_error = null
      from jsonb_to_recordset(${rows}::jsonb) as v(id bigint, status text, effect jsonb)
     where e.id = v.id and e.status = 'pending'`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/** Records the pulls queued for the windows these events made stale (one statement for events of the same windows). */
export async function recordRepullsForEvents(
  db: DbOrTrx,
  ids: string[],
  repulls: { start: string; end: string; pullId: string }[],
  /** Whether the events still owe a pull (the one found was already reading): the sweep asks again. */
  repullDue = false,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("webhook_event")
    .set({ effect: sql`coalesce(effect, '{}'::jsonb) || ${JSON.stringify({ repulls, repullDue })}::jsonb` })
    .where("id", "in", ids)
    .execute();
}

/** How many events are still waiting to be processed (the burst bench and the fleet test wait for none). */
export async function countPendingWebhookEvents(db: DbOrTrx): Promise<number> {
  return countRows(db.selectFrom("webhook_event").where("status", "=", "pending"));
}
