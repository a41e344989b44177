import "server-only";
import type { Db } from "@/db";
import { completeWebhookEvent, lockWebhookEvent, readGameAutomation, recordWebhookEventFailure } from "@/db/queries/webhooks";
import type { JobHandler } from "@/lib/jobs/registry";
import { getDb } from "@/db";
import { log } from "@/lib/log";
import { parseWebhookEvent, type WebhookEvent } from "@/lib/service/schemas";
import { formatInstant, type TimeWindow, windowToQuery } from "@/lib/time";
import { MAX_EVENT_ATTEMPTS, type processWebhookEventJob } from "./jobs";
import { eventInstant } from "./event-time";
import { snapshotLink, type SnapshotLink } from "./snapshot-link";

/**
 * What an event does, once stored. Runs in a job, inside one transaction holding the event row's lock: a second run
 * of the same event (a retry, the sweep, two workers) waits for the first and then finds it processed.
 *
 * - subscription.refunded / subscription.renewed: the snapshots of the window holding the event time no longer match
 *   the service, so they are marked stale; with the game's auto-refresh on, those windows are pulled again.
 * - subscription.canceled: nothing to change; it is shown on the subscription page (listSubscriptionEvents).
 * - anything else (purchase.*, types we do not know): stored and shown.
 */

export type ProcessOutcome = "processed" | "unprocessable" | "already-done" | "missing";

type Effect = Record<string, unknown>;

function windowText(window: TimeWindow): { start: string; end: string } {
  return windowToQuery(window);
}

async function applyStaleness(
  trx: Db,
  gameId: string,
  event: Extract<WebhookEvent, { type: "subscription.refunded" | "subscription.renewed" }>,
  link: SnapshotLink,
): Promise<Effect> {
  const instant = eventInstant(event);
  const subscriptionId = event.data.subscription_id ?? null;
  if (instant === null) return { kind: "staleness", note: "the event carries no readable time; no window marked" };
  const reason = `${event.type} ${subscriptionId ?? ""}`.trim();
  const windows = await link.markStale(trx, {
    gameId,
    instant: new Date(instant),
    reason,
    detail: { eventId: event.envelope.event_id, eventType: event.type, subscriptionId, periodSeq: event.data.period_seq ?? null },
  });
  const automation = await readGameAutomation(trx, gameId);
  const repulls: { start: string; end: string; pullId: string | null }[] = [];
  if (automation?.autoRefresh) {
    for (const window of windows) {
      const pullId = await link.requestPull(trx, { gameId, window, reason: `webhook ${event.type}` });
      repulls.push({ ...windowText(window), pullId });
    }
  }
  return {
    kind: "staleness",
    instant: formatInstant(instant),
    staleWindows: windows.map(windowText),
    autoRefresh: automation?.autoRefresh ?? false,
    repulls,
  };
}

async function applyEffects(trx: Db, gameId: string, event: WebhookEvent, link: SnapshotLink): Promise<Effect> {
  switch (event.type) {
    case "subscription.refunded":
      return {
        ...(await applyStaleness(trx, gameId, event, link)),
        clientRequestId: event.data.client_request_id,
        amountUsd: event.data.amount_usd,
      };
    case "subscription.renewed":
      return applyStaleness(trx, gameId, event, link);
    case "subscription.canceled":
      return { kind: "cancellation", accessUntil: event.data.access_until, cancelAtPeriodEnd: event.data.cancel_at_period_end ?? null };
    default:
      return { kind: "stored" };
  }
}

export async function processWebhookEvent(db: Db, eventId: string, link: SnapshotLink = snapshotLink): Promise<ProcessOutcome> {
  return db.transaction().execute(async (trx) => {
    const row = await lockWebhookEvent(trx, eventId);
    if (!row) return "missing";
    if (row.status !== "pending") return "already-done";
    let json: unknown;
    try {
      json = JSON.parse(row.body);
    } catch {
      json = null;
    }
    const parsed = parseWebhookEvent(json);
    if (!parsed.success) {
      await completeWebhookEvent(trx, row.id, { status: "unprocessable", effect: { kind: "unprocessable", issues: parsed.issues } });
      return "unprocessable";
    }
    const effect = await applyEffects(trx, row.gameId, parsed.event, link);
    await completeWebhookEvent(trx, row.id, { status: "processed", effect });
    return "processed";
  });
}

export const handleProcessWebhookEvent: JobHandler<typeof processWebhookEventJob.payload> = async ({ eventId }) => {
  const db = getDb();
  try {
    const outcome = await processWebhookEvent(db, eventId);
    log.info("webhook event processed", { id: eventId, outcome });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const recorded = await recordWebhookEventFailure(db, eventId, { error: message, maxAttempts: MAX_EVENT_ATTEMPTS }).catch(() => null);
    if (recorded?.status === "failed") log.error("webhook event failed for good", { id: eventId, attempts: recorded.attempts, error });
    throw error;
  }
};
