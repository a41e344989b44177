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
 * How long after a refund its event may be created. The spec lists no `refunded_at` on subscription.refunded, so such
 * an event is placed by its `created_at`, which can fall just after a window's end while the refund fell just before.
 */
export const REFUND_EVENT_LAG_MS = 5 * 60_000;

/**
 * Every instant whose window the event's change belongs to, the event's own (eventInstant) first: a refund placed by
 * its event's `created_at` within REFUND_EVENT_LAG_MS after a month began (UTC, where months and quarters begin) also
 * belongs to the month before, by that much: a refund a moment before a month's end, its event a moment after, marks
 * both months.
 */
export function eventInstants(event: WebhookEvent): number[] {
  const instant = eventInstant(event);
  if (instant === null) return [];
  const placedByCreation =
    event.type === "subscription.refunded" && parseServiceInstant(event.data.refunded_at ?? "") === null;
  const earlier = instant - REFUND_EVENT_LAG_MS;
  const acrossMonths = new Date(earlier).getUTCMonth() !== new Date(instant).getUTCMonth();
  return placedByCreation && acrossMonths ? [instant, earlier] : [instant];
}
