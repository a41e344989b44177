import type { WebhookEvent } from "@/lib/service/schemas";
import { parseServiceInstant } from "@/lib/time";

/**
 * The instant that places the event in a window. Spec README, Windows: "a renewal belongs to the window holding its
 * paid_at; a reversal to the window holding its refunded_at". Without those fields, the envelope's created_at.
 */
export function eventInstant(event: WebhookEvent): number | null {
  const created = parseServiceInstant(event.envelope.created_at);
  if (event.type === "subscription.refunded") return parseServiceInstant(event.data.refunded_at ?? "") ?? created;
  if (event.type === "subscription.renewed") return parseServiceInstant(event.data.paid_at ?? "") ?? created;
  return created;
}

/**
 * How long after a refund or a renewal its event may be created. The spec lists no `refunded_at` on
 * subscription.refunded (and no field list of subscription.renewed, whose `paid_at` is read when sent), so such an
 * event is placed by its `created_at`, which can fall just after a window's end while the change fell just before.
 */
export const REFUND_EVENT_LAG_MS = 5 * 60_000;

/**
 * Every instant whose window the event's change belongs to, the event's own (eventInstant) first: a refund or a
 * renewal placed by its event's `created_at` within REFUND_EVENT_LAG_MS after midnight UTC (where months, and windows
 * given by dates, begin) also belongs to the window holding that much earlier: a change a moment before a window's
 * end, its event a moment after, marks both. Inside one window the two are one change of it (markChangesStale counts
 * events).
 */
export function eventInstants(event: WebhookEvent): number[] {
  const instant = eventInstant(event);
  if (instant === null) return [];
  const placedByCreation =
    (event.type === "subscription.refunded" && parseServiceInstant(event.data.refunded_at ?? "") === null) ||
    (event.type === "subscription.renewed" && parseServiceInstant(event.data.paid_at ?? "") === null);
  const earlier = instant - REFUND_EVENT_LAG_MS;
  const acrossMidnight = Math.floor(earlier / DAY_MS) !== Math.floor(instant / DAY_MS);
  return placedByCreation && acrossMidnight ? [instant, earlier] : [instant];
}

const DAY_MS = 86_400_000;
