import "server-only";
import { type Selectable, sql } from "kysely";
import type { Db } from "@/db";
import type { WebhookEventStatus, WebhookEventTable } from "@/db/types";
import { escapeLike } from "./like";

/** Reads of received webhook events for the desk: the filtered list, one event in full, a subscription's events. */

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

/** The columns of an event that every listing shows. */
const EVENT_ROW_COLUMNS = [
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
] as const;

function toEventRow(r: Pick<Selectable<WebhookEventTable>, (typeof EVENT_ROW_COLUMNS)[number]>): WebhookEventRow {
  return {
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
  };
}

function filtered(db: Db, gameId: string, filter: WebhookEventFilter) {
  let query = db.selectFrom("webhook_event").where("game_id", "=", gameId);
  if (filter.eventType) query = query.where("event_type", "=", filter.eventType);
  if (filter.status) query = query.where("status", "=", filter.status);
  // Ids are pasted from tickets with a lower-case prefix (sub_…): read as the subscriptions search reads them, the
  // rest as typed (an id's last characters tell subscriptions apart by case).
  if (filter.subscription) {
    const id = /^sub_/i.test(filter.subscription) ? `SUB_${filter.subscription.slice(4)}` : filter.subscription;
    query = query.where("subscription_id", "like", `${escapeLike(id)}%`);
  }
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
    .select(EVENT_ROW_COLUMNS)
    .orderBy(sortColumn, input.dir)
    .orderBy("id", input.dir)
    .limit(input.limit)
    .offset(input.offset)
    .execute();
  return {
    total: Number(countRow?.total ?? 0),
    rows: rows.map(toEventRow),
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
      ...EVENT_ROW_COLUMNS.map((column) => `e.${column}` as const),
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
    ...toEventRow(row),
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
