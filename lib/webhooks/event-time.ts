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
