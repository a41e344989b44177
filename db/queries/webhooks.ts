import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { WebhookDeliveryOutcome, WebhookEventStatus } from "@/db/types";
import { type GameAutomation, readAutomation } from "@/core/game-automation";

// --- Receiving ----------------------------------------------------------------------------------------------------

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

// --- Processing ---------------------------------------------------------------------------------------------------

export type WebhookEventForProcessing = {
  id: string;
  gameId: string;
  eventType: string;
  body: string;
  status: WebhookEventStatus;
  attempts: number;
  effect: Record<string, unknown> | null;
};

/** Locks one event row until the end of the transaction (a second worker on the same event waits, then sees it done). */
export async function lockWebhookEvent(trx: Db, id: string): Promise<WebhookEventForProcessing | null> {
  const row = await trx
    .selectFrom("webhook_event")
    .select(["id", "game_id", "event_type", "body", "status", "attempts", "effect"])
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    gameId: row.game_id,
    eventType: row.event_type,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    effect: row.effect,
  };
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
): Promise<void> {
  await db
    .updateTable("webhook_event")
    .set({ effect: sql`coalesce(effect, '{}'::jsonb) || ${JSON.stringify({ repulls, repullDue: false })}::jsonb` })
    .where("id", "=", id)
    .execute();
}

/** Records a failed try; the try that reaches `maxAttempts` marks the event failed, so that the sweep stops queuing it. */
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

/** Puts a failed event back in the queue's hands (a person asked for it after fixing the cause). */
export async function resetWebhookEvent(db: Db, gameId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable("webhook_event")
    .set({ status: "pending", last_error: null })
    .where("id", "=", id)
    .where("game_id", "=", gameId)
    .where("status", "=", "failed")
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Events still pending a while after they arrived (their job was never queued, a crash, or was lost), and processed
 * events whose re-pulls could not be queued.
 */
export async function listStalledWebhookEventIds(
  db: Db,
  input: { receivedBefore: Date; limit: number },
): Promise<string[]> {
  const rows = await db
    .selectFrom("webhook_event")
    .select("id")
    .where((eb) =>
      eb.or([
        eb.and([eb("status", "=", "pending"), eb("received_at", "<", input.receivedBefore)]),
        eb.and([
          eb("status", "=", "processed"),
          eb(sql`effect->>'repullDue'`, "=", "true"),
          eb("processed_at", "<", input.receivedBefore),
        ]),
      ]),
    )
    .orderBy("received_at")
    .limit(input.limit)
    .execute();
  return rows.map((r) => r.id);
}

// --- Reading ------------------------------------------------------------------------------------------------------

export const WEBHOOK_EVENT_SORTS = ["received_at", "occurred_at", "event_type"] as const;
export type WebhookEventSort = (typeof WEBHOOK_EVENT_SORTS)[number];

export type WebhookEventFilter = {
  eventType?: string;
  status?: WebhookEventStatus;
  /** Exact subscription id, or its beginning. */
  subscription?: string;
  /** Event time (the envelope's created_at, else the time received) within [from, to). */
  fromMs?: number;
  toMs?: number;
};

export type WebhookEventRow = {
  id: string;
  eventId: string;
  eventType: string;
  subscriptionId: string | null;
  clientRequestId: string | null;
  occurredAt: string | null;
  receivedAt: string;
  status: WebhookEventStatus;
  signedWith: "current" | "previous";
  effect: Record<string, unknown> | null;
  lastError: string | null;
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filtered(db: Db, gameId: string, filter: WebhookEventFilter) {
  let query = db.selectFrom("webhook_event").where("game_id", "=", gameId);
  if (filter.eventType) query = query.where("event_type", "=", filter.eventType);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.subscription) query = query.where("subscription_id", "like", `${escapeLike(filter.subscription)}%`);
  const eventTime = sql<Date>`coalesce(occurred_at, received_at)`;
  if (filter.fromMs !== undefined) query = query.where(eventTime, ">=", new Date(filter.fromMs));
  if (filter.toMs !== undefined) query = query.where(eventTime, "<", new Date(filter.toMs));
  return query;
}

export async function listWebhookEvents(
  db: Db,
  input: {
    gameId: string;
    filter: WebhookEventFilter;
    sort: WebhookEventSort;
    dir: "asc" | "desc";
    limit: number;
    offset: number;
  },
): Promise<{ rows: WebhookEventRow[]; total: number }> {
  const base = filtered(db, input.gameId, input.filter);
  const countRow = await base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirst();
  const sortColumn =
    input.sort === "occurred_at"
      ? sql`coalesce(occurred_at, received_at)`
      : input.sort === "event_type"
        ? sql`event_type`
        : sql`received_at`;
  const rows = await base
    .select([
      "id",
      "event_id",
      "event_type",
      "subscription_id",
      "client_request_id",
      "occurred_at",
      "received_at",
      "status",
      "signed_with",
      "effect",
      "last_error",
    ])
    .orderBy(sortColumn, input.dir)
    .orderBy("id", input.dir)
    .limit(input.limit)
    .offset(input.offset)
    .execute();
  return {
    total: Number(countRow?.total ?? 0),
    rows: rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      subscriptionId: r.subscription_id,
      clientRequestId: r.client_request_id,
      occurredAt: r.occurred_at?.toISOString() ?? null,
      receivedAt: r.received_at.toISOString(),
      status: r.status,
      signedWith: r.signed_with,
      effect: r.effect,
      lastError: r.last_error,
    })),
  };
}

/** Event types this game has received, for the type filter (unknown types included). */
export async function listWebhookEventTypes(db: Db, gameId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("webhook_event")
    .select("event_type")
    .distinct()
    .where("game_id", "=", gameId)
    .orderBy("event_type")
    .execute();
  return rows.map((r) => r.event_type);
}

export type WebhookEventDetail = WebhookEventRow & {
  idempotencyKey: string;
  deliveryId: string | null;
  secretVersion: string | null;
  signatureTimestamp: string;
  body: string;
  parseIssues: string[] | null;
  attempts: number;
  processedAt: string | null;
  /** The refund made from Payout Desk that this event reports, when its client_request_id is one of ours. */
  refundAttempt: { id: string; status: string; amountUsd: string; actorEmail: string | null; createdAt: string } | null;
};

export async function getWebhookEvent(db: Db, gameId: string, id: string): Promise<WebhookEventDetail | null> {
  const row = await db
    .selectFrom("webhook_event as e")
    // A refund made from Payout Desk carries the client_request_id of its attempt back on subscription.refunded.
    .leftJoin("refund_attempt as r", (join) =>
      join.onRef("r.game_id", "=", "e.game_id").onRef("r.client_request_id", "=", "e.client_request_id"),
    )
    .select([
      "e.id",
      "e.event_id",
      "e.event_type",
      "e.subscription_id",
      "e.client_request_id",
      "e.occurred_at",
      "e.received_at",
      "e.status",
      "e.signed_with",
      "e.effect",
      "e.last_error",
      "e.idempotency_key",
      "e.delivery_id",
      "e.secret_version",
      "e.signature_timestamp",
      "e.body",
      "e.parse_issues",
      "e.attempts",
      "e.processed_at",
      "r.id as refund_id",
      "r.status as refund_status",
      "r.amount_usd as refund_amount_usd",
      "r.actor_email as refund_actor_email",
      "r.created_at as refund_created_at",
    ])
    .where("e.game_id", "=", gameId)
    .where("e.id", "=", id)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    subscriptionId: row.subscription_id,
    clientRequestId: row.client_request_id,
    occurredAt: row.occurred_at?.toISOString() ?? null,
    receivedAt: row.received_at.toISOString(),
    status: row.status,
    signedWith: row.signed_with,
    effect: row.effect,
    lastError: row.last_error,
    idempotencyKey: row.idempotency_key,
    deliveryId: row.delivery_id,
    secretVersion: row.secret_version,
    signatureTimestamp: row.signature_timestamp.toISOString(),
    body: row.body,
    parseIssues: row.parse_issues,
    attempts: row.attempts,
    processedAt: row.processed_at?.toISOString() ?? null,
    refundAttempt:
      row.refund_id && row.refund_status && row.refund_amount_usd && row.refund_created_at
        ? {
            id: row.refund_id,
            status: row.refund_status,
            amountUsd: row.refund_amount_usd,
            actorEmail: row.refund_actor_email,
            createdAt: row.refund_created_at.toISOString(),
          }
        : null,
  };
}

export type SubscriptionEvent = {
  id: string;
  eventType: string;
  occurredAt: string | null;
  receivedAt: string;
  status: WebhookEventStatus;
  /** The event's data object as the service sent it (access_until, reason, amounts, ...). */
  data: Record<string, unknown>;
  clientRequestId: string | null;
};

/**
 * Every event the service sent about one subscription, newest first: cancellations (with access_until), refunds
 * and renewals. For the subscription page.
 */
export async function listSubscriptionEvents(
  db: Db,
  gameId: string,
  subscriptionId: string,
  options: { types?: string[]; limit?: number } = {},
): Promise<SubscriptionEvent[]> {
  let query = db
    .selectFrom("webhook_event")
    .select(["id", "event_type", "occurred_at", "received_at", "status", "body", "client_request_id"])
    .where("game_id", "=", gameId)
    .where("subscription_id", "=", subscriptionId)
    .orderBy(sql`coalesce(occurred_at, received_at)`, "desc")
    .orderBy("id", "desc")
    .limit(options.limit ?? 100);
  if (options.types && options.types.length > 0) query = query.where("event_type", "in", options.types);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    eventType: r.event_type,
    occurredAt: r.occurred_at?.toISOString() ?? null,
    receivedAt: r.received_at.toISOString(),
    status: r.status,
    data: dataOf(r.body),
    clientRequestId: r.client_request_id,
  }));
}

function dataOf(body: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body) as { data?: unknown };
    return parsed.data && typeof parsed.data === "object" && !Array.isArray(parsed.data)
      ? (parsed.data as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export type DeliverySummary = {
  accepted: number;
  duplicate: number;
  refused: number;
  refusedByReason: { reason: string; count: number; lastAt: string }[];
  lastAcceptedAt: string | null;
};

/** Delivery counters of a game over UTC days [fromDay, toDay] (both optional, "YYYY-MM-DD"). */
export async function summarizeWebhookDeliveries(
  db: Db,
  input: { gameId: string; fromDay?: string; toDay?: string },
): Promise<DeliverySummary> {
  let query = db
    .selectFrom("webhook_delivery_count")
    .select((eb) => ["outcome", "reason", eb.fn.sum<string>("count").as("count"), eb.fn.max("last_at").as("last_at")])
    .where("game_id", "=", input.gameId)
    .groupBy(["outcome", "reason"]);
  if (input.fromDay) query = query.where(sql`day`, ">=", sql<Date>`${input.fromDay}::date`);
  if (input.toDay) query = query.where(sql`day`, "<=", sql<Date>`${input.toDay}::date`);
  const rows = await query.execute();
  const summary: DeliverySummary = { accepted: 0, duplicate: 0, refused: 0, refusedByReason: [], lastAcceptedAt: null };
  for (const row of rows) {
    const count = Number(row.count);
    summary[row.outcome] += count;
    if (row.outcome === "refused") {
      summary.refusedByReason.push({ reason: row.reason, count, lastAt: new Date(row.last_at).toISOString() });
    }
    if (row.outcome === "accepted") summary.lastAcceptedAt = new Date(row.last_at).toISOString();
  }
  summary.refusedByReason.sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return summary;
}

// --- Settings and scheduled pulls ---------------------------------------------------------------------------------

export async function readGameAutomation(db: Db, gameId: string): Promise<GameAutomation | null> {
  const row = await db.selectFrom("game").select("settings").where("id", "=", gameId).executeTakeFirst();
  return row ? readAutomation(row.settings) : null;
}

/** Replaces `settings.automation` and leaves the game's other settings as they are. */
export async function updateGameAutomation(db: Db, gameId: string, automation: GameAutomation): Promise<boolean> {
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

export async function isScheduledPullClaimed(db: Db, key: ScheduledPullKey): Promise<boolean> {
  const row = await db
    .selectFrom("scheduled_pull")
    .select("period_key")
    .where("game_id", "=", key.gameId)
    .where("kind", "=", key.kind)
    .where("period_key", "=", key.periodKey)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records a queued scheduled pull; false when another run recorded the same game, kind and period first. */
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
    .onConflict((oc) => oc.doNothing())
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
