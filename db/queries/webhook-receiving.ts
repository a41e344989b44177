import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { WebhookDeliveryOutcome } from "@/db/types";
import { markChangesStale, type StaleChange } from "./stale-marks";

/**
 * What receiving a delivery reads and writes: signing secrets, the verified event itself and the counters of
 * deliveries accepted, duplicated or refused.
 */

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
    from unnest(${counts.map((c) => c.gameId)}::text[], ${counts.map((c) => c.day)}::date[],
                ${counts.map((c) => c.reason)}::text[],
                ${counts.map((c) => c.count)}::bigint[], ${counts.map((c) => c.lastAt.toISOString())}::timestamptz[])
      as v(game_id, day, reason, count, last_at)
    left join game g on g.id = v.game_id
    group by coalesce(g.id, ''), v.day, v.reason
    on conflict (game_id, day, outcome, reason) do update set
      count = webhook_delivery_count.count + excluded.count,
      last_at = greatest(webhook_delivery_count.last_at, excluded.last_at)`.execute(db);
}

/** A game's webhook signing secrets as stored (sealed); null when no such game. */
export async function findWebhookSigningSecrets(db: Db, gameId: string) {
  const row = await db
    .selectFrom("game")
    .select([
      "webhook_secret_sealed as current",
      "webhook_previous_secret_sealed as previous",
      "webhook_previous_expires_at as previousExpiresAt",
    ])
    .where("id", "=", gameId)
    .executeTakeFirst();
  return row ?? null;
}

export type SealedSigningSecrets = NonNullable<Awaited<ReturnType<typeof findWebhookSigningSecrets>>>;

export type NewWebhookEvent = {
  gameId: string;
  idempotencyKey: string;
  eventId: string;
  eventType: string;
  deliveryId: string | null;
  secretVersion: string | null;
  signedWith: "current" | "previous";
  signatureTimestamp: Date;
  occurredAt: Date | null;
  subscriptionId: string | null;
  clientRequestId: string | null;
  body: string;
  parseIssues: string[] | null;
  /** Marked with the event when it is new (not a duplicate): the change an event kept unprocessed still makes. */
  staleChange?: StaleChange;
};

export type StoreOutcome = { outcome: "accepted"; id: string } | { outcome: "duplicate" };

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Stores a verified event and counts the delivery, in one transaction. The unique (game, idempotency key) and
 * (game, event id) constraints decide what a duplicate is, so parallel deliveries of one event store it once: every
 * insert but the first waits on the first and then inserts nothing.
 */
export async function storeWebhookEvent(db: Db, event: NewWebhookEvent, at = new Date()): Promise<StoreOutcome> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("webhook_event")
      .values({
        game_id: event.gameId,
        idempotency_key: event.idempotencyKey,
        event_id: event.eventId,
        event_type: event.eventType,
        delivery_id: event.deliveryId,
        secret_version: event.secretVersion,
        signed_with: event.signedWith,
        signature_timestamp: event.signatureTimestamp,
        occurred_at: event.occurredAt,
        subscription_id: event.subscriptionId,
        client_request_id: event.clientRequestId,
        body: event.body,
        parse_issues: event.parseIssues ? JSON.stringify(event.parseIssues) : null,
        status: event.parseIssues ? "unprocessable" : "pending",
      })
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .executeTakeFirst();
    if (inserted && event.staleChange) await markChangesStale(trx, event.gameId, [event.staleChange]);
    const outcome: WebhookDeliveryOutcome = inserted ? "accepted" : "duplicate";
    await countWebhookDelivery(trx, { gameId: event.gameId, outcome, reason: "", at });
    return inserted ? { outcome: "accepted", id: inserted.id } : { outcome: "duplicate" };
  });
}

/** Adds one to the counter of a delivery outcome for the game and UTC day. */
export async function countWebhookDelivery(
  db: Db,
  input: { gameId: string; outcome: WebhookDeliveryOutcome; reason: string; at?: Date },
): Promise<void> {
  const at = input.at ?? new Date();
  await db
    .insertInto("webhook_delivery_count")
    .values({
      game_id: input.gameId,
      day: utcDay(at),
      outcome: input.outcome,
      reason: input.reason,
      count: 1,
      last_at: at,
    })
    .onConflict((oc) =>
      oc.columns(["game_id", "day", "outcome", "reason"]).doUpdateSet({
        count: sql`webhook_delivery_count.count + 1`,
        last_at: sql`greatest(webhook_delivery_count.last_at, excluded.last_at)`,
      }),
    )
    .execute();
}
