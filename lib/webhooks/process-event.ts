import "server-only";
import { databaseNowMs } from "@/db/queries/scalar";
import type { Db } from "@/db";
import { completeWebhookEvent, lockWebhookEvent, readGameAutomation, recordRepulls } from "@/db/queries/webhooks";
import type { WebhookEvent } from "@/lib/service/schemas";
import { formatInstant, parseInstant, type TimeWindow, windowToQuery } from "@/lib/time";
import { applyDisputeEvent } from "./disputes";
import { parseStoredEvent } from "./event-json";
import { eventInstants } from "./event-time";
import { pullServesChange, snapshotLink, type SnapshotLink } from "./snapshot-link";

/**
 * What an event does, once stored. Runs in a job; idempotent, since every job may run twice.
 *
 * - subscription.refunded / subscription.renewed: the snapshots of the window holding the event time no longer match
 *   the service, so they are marked stale; with the game's auto-refresh on, those windows are pulled again.
 * - subscription.canceled: nothing to change; it is shown on the subscription page (listSubscriptionEvents).
 * - purchase.disputed: the dispute is recorded (opened, then closed won or lost); the payout flags read it.
 * - anything else (other purchase.* events, types we do not know): stored and shown.
 *
 * The staleness and the event's new status are written in one transaction that holds the event row's lock, so a
 * second run waits for the first and then finds the event processed. Re-pulls are queued after that commit (a pull
 * job must find its row committed); until they are, the event says `repullDue`, and a second run queues them.
 */

export type ProcessOutcome = "processed" | "unprocessable" | "already-done" | "missing" | "busy";

/**
 * How long a run waits for the event's row: a run holding it longer is taken to be working on it (or its host gone,
 * its transaction open until the database notices), and this one leaves it to the sweep's next turn rather than hold a
 * job's slot meanwhile, uncounted.
 */
const EVENT_LOCK_WAIT_MS = 30_000;

export type Effect = Record<string, unknown>;
type WindowText = { start: string; end: string };

/**
 * What a refund or renewal asks of the windows holding it: a stale mark at each of its instants (its own first, see
 * eventInstants), or a note when it carries no time.
 */
export type StalenessRequest =
  | { instant: number; instants: number[]; reason: string; detail: Record<string, unknown> }
  | { instant: null; note: string };

type StaleEvent = Extract<WebhookEvent, { type: "subscription.refunded" | "subscription.renewed" }>;

export function stalenessRequest(event: StaleEvent): StalenessRequest {
  const [instant, ...earlier] = eventInstants(event);
  if (instant === undefined)
    return { instant: null, note: "The event carries no readable time; no window was marked." };
  const subscriptionId = event.data.subscription_id ?? null;
  return {
    instant,
    instants: [instant, ...earlier],
    reason: `${event.type}${subscriptionId ? ` ${subscriptionId}` : ""}`,
    detail: {
      ...(subscriptionId ? { subscriptionId } : {}),
      eventId: event.envelope.event_id,
      eventType: event.type,
      periodSeq: event.data.period_seq ?? null,
    },
  };
}

/** Whether two windows are the same span. */
export const sameWindow = (a: TimeWindow, b: TimeWindow): boolean => a.startMs === b.startMs && a.endMs === b.endMs;

/** The part of an event's effect that its stale mark decides: the windows marked and whether they are pulled again. */
export function stalenessOutcome(windows: TimeWindow[], autoRefresh: boolean): Effect {
  return {
    staleWindows: windows.map((w) => windowToQuery(w)),
    autoRefresh,
    repullDue: autoRefresh && windows.length > 0,
  };
}

/**
 * How the staleness an event asks for is applied: at once, one event at a time (processWebhookEvent), or gathered and
 * applied once for many events (lib/webhooks/drain.ts), which fills in the outcome afterwards.
 */
export type ApplyStaleness = (trx: Db, gameId: string, request: StalenessRequest) => Promise<Effect>;

function applyStalenessNow(link: SnapshotLink): ApplyStaleness {
  return async (trx, gameId, request) => {
    if (request.instant === null) return { kind: "staleness", note: request.note };
    const windows: TimeWindow[] = [];
    for (const instant of request.instants) {
      const marked = await link.markStale(trx, {
        gameId,
        instant: new Date(instant),
        reason: request.reason,
        detail: request.detail,
      });
      windows.push(...marked.filter((w) => !windows.some((k) => sameWindow(k, w))));
    }
    const automation = await readGameAutomation(trx, gameId);
    return {
      kind: "staleness",
      instant: formatInstant(request.instant),
      ...stalenessOutcome(windows, automation?.autoRefresh ?? false),
    };
  };
}

export async function applyEffects(
  trx: Db,
  gameId: string,
  event: WebhookEvent,
  applyStaleness: ApplyStaleness,
): Promise<Effect> {
  switch (event.type) {
    case "subscription.refunded":
      return {
        ...(await applyStaleness(trx, gameId, stalenessRequest(event))),
        clientRequestId: event.data.client_request_id ?? null,
        amountUsd: event.data.amount_usd,
        periodSeq: event.data.period_seq,
      };
    case "subscription.renewed":
      return applyStaleness(trx, gameId, stalenessRequest(event));
    case "subscription.canceled":
      return {
        kind: "cancellation",
        accessUntil: event.data.access_until,
        cancelAtPeriodEnd: event.data.cancel_at_period_end ?? null,
      };
    default:
      if (event.envelope.event_type === "purchase.disputed") return applyDisputeEvent(trx, gameId, event.envelope);
      return { kind: "stored" };
  }
}

/** The time of the change an effect marked stale (its `instant`), if it has one. */
export function effectInstant(effect: Effect | null): number | null {
  return typeof effect?.instant === "string" ? parseInstant(effect.instant) : null;
}

export function windowsDue(effect: Effect | null): TimeWindow[] {
  if (effect?.repullDue !== true || !Array.isArray(effect.staleWindows)) return [];
  return (effect.staleWindows as WindowText[]).flatMap((w) => {
    const startMs = parseInstant(String(w.start));
    const endMs = parseInstant(String(w.end));
    return startMs !== null && endMs !== null && endMs > startMs ? [{ startMs, endMs }] : [];
  });
}

export async function processWebhookEvent(
  db: Db,
  eventId: string,
  link: SnapshotLink = snapshotLink,
  lockWaitMs = EVENT_LOCK_WAIT_MS,
): Promise<ProcessOutcome> {
  type Step = { outcome: ProcessOutcome; gameId?: string; repull?: TimeWindow[]; instantMs?: number | null };
  const busy = new Error("the event is held by another run");
  const step = await db
    .transaction()
    .execute(async (trx): Promise<Step> => {
      const row = await lockWebhookEvent(trx, eventId, lockWaitMs);
      // The transaction is aborted by the wait's end: it is left by throwing.
      if (row === "busy") throw busy;
      if (!row) return { outcome: "missing" };
      if (row.status !== "pending") {
        return {
          outcome: "already-done",
          gameId: row.gameId,
          repull: windowsDue(row.effect),
          instantMs: effectInstant(row.effect),
        };
      }
      const parsed = parseStoredEvent(row.body);
      if (!parsed.success) {
        await completeWebhookEvent(trx, row.id, {
          status: "unprocessable",
          effect: { kind: "unprocessable", issues: parsed.issues },
        });
        return { outcome: "unprocessable" };
      }
      const effect = await applyEffects(trx, row.gameId, parsed.event, applyStalenessNow(link));
      if (effect.kind === "unprocessable") {
        await completeWebhookEvent(trx, row.id, { status: "unprocessable", effect });
        return { outcome: "unprocessable" };
      }
      await completeWebhookEvent(trx, row.id, { status: "processed", effect });
      return { outcome: "processed", gameId: row.gameId, repull: windowsDue(effect), instantMs: effectInstant(effect) };
    })
    .catch((error: unknown) => {
      if (error === busy) return { outcome: "busy" as const };
      throw error;
    });
  if (step.outcome === "busy") return "busy";

  if (step.repull && step.repull.length > 0 && step.gameId) {
    const repulls: (WindowText & { pullId: string })[] = [];
    let due = false;
    for (const window of step.repull) {
      const asked = await link.requestPull(db, { gameId: step.gameId, window, via: "webhook" });
      repulls.push({ ...windowToQuery(window), pullId: asked.pullId });
      due ||= !pullServesChange(asked, window, step.instantMs ?? null, await databaseNowMs(db));
    }
    // A pull already reading, or one that reads an open window only up to a moment before this change, may miss it:
    // the event stays due, and the sweep asks again.
    await recordRepulls(db, eventId, repulls, due);
  }
  return step.outcome;
}
