import { formatUsdText, formatUtcDateTime } from "@/lib/format";
import { windowLabel } from "@/lib/payouts/window-key";
import { parseInstant } from "@/lib/time";
/** Words for what the receiver and the processing job record, shared by the event log and its tests. Pure. */

type Tone = "neutral" | "info" | "success" | "warning" | "danger";

export const WEBHOOK_EVENT_STATUSES = ["pending", "processed", "failed", "unprocessable"] as const;

export const EVENT_STATUS_LABELS: Record<string, { label: string; tone: Tone }> = {
  pending: { label: "Queued", tone: "info" },
  processed: { label: "Processed", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  unprocessable: { label: "Unreadable data", tone: "warning" },
};

export const REFUSAL_LABELS: Record<string, string> = {
  signature_missing: "No signature header",
  signature_malformed: "Malformed signature header",
  signature_mismatch: "Signature does not match a signing secret",
  no_secret_configured: "No signing secret configured for the game",
  timestamp_too_old: "Signed more than 5 minutes ago",
  timestamp_in_future: "Signed more than 5 minutes in the future",
  unknown_game: "Unknown game",
  body_too_large: "Body over 1 MB",
  body_not_utf8: "Body is not UTF-8",
  body_not_json: "Body is not JSON",
  body_too_deep: "Body nested more than 64 deep",
  envelope_invalid: "Not an event envelope",
  tenant_mismatch: "Event of another game",
  idempotency_key_missing: "No idempotency key header",
  idempotency_key_malformed: "Malformed idempotency key header",
};

/** Event types the service documents; others still show, under their own name. */
export const KNOWN_EVENT_TYPES = [
  "subscription.refunded",
  "subscription.renewed",
  "subscription.canceled",
  "purchase.completed",
  "purchase.failed",
  "purchase.refunded",
  "purchase.disputed",
  "purchase.fraud_warning",
] as const;

export function refusalLabel(reason: string): string {
  return REFUSAL_LABELS[reason] ?? reason;
}

type WindowText = { start?: unknown; end?: unknown };

/** A window as every page names it ("December 2026"), or its bounds as the event gave them when unreadable. */
function nameOf(window: WindowText): string {
  const start = parseInstant(String(window.start ?? ""));
  const end = parseInstant(String(window.end ?? ""));
  if (start === null || end === null) return `${String(window.start ?? "")} – ${String(window.end ?? "")}`;
  return windowLabel({ startMs: start, endMs: end });
}

/** The event types that change a window's figures, so mark the window holding them stale, readable or not. */
export function marksWindowStale(eventType: string): boolean {
  return eventType === "subscription.refunded" || eventType === "subscription.renewed";
}

/** One line saying what an event did (or why it did not). */
export function describeEffect(input: {
  status: string;
  effect: Record<string, unknown> | null;
  lastError: string | null;
  eventType?: string;
}): string {
  const { status, effect, lastError } = input;
  // A refund or renewal marks the window holding its envelope's time stale all the same (lib/webhooks/receive.ts).
  if (status === "unprocessable" && marksWindowStale(input.eventType ?? ""))
    return (
      "Stored; its data did not match the documented fields: the window holding its time was marked stale, " +
      "nothing else changed"
    );
  if (status === "pending") return lastError ? `Waiting to be tried again: ${lastError}` : "Waiting to be processed";
  if (status === "failed") return `Failed: ${lastError ?? "unknown error"}`;
  if (status === "unprocessable") return "Stored; its data did not match the documented fields, so nothing was changed";
  if (!effect) return "Processed";
  switch (effect.kind) {
    case "staleness": {
      const windows = Array.isArray(effect.staleWindows) ? (effect.staleWindows as WindowText[]) : [];
      if (windows.length === 0)
        return typeof effect.note === "string" ? effect.note : "No snapshot covers this time; nothing to mark";
      const marked = `Marked ${windows.map(nameOf).join(", ")} stale`;
      const asked = Array.isArray(effect.repulls) && effect.repulls.length > 0;
      if (effect.repullDue === true)
        return `${marked}; ${asked ? "re-pull asked again once the pull under way ends" : "re-pull not queued yet"}`;
      if (asked) return `${marked}; re-pull queued`;
      return effect.autoRefresh ? marked : `${marked}; auto-refresh is off`;
    }
    case "cancellation":
      return typeof effect.accessUntil === "string"
        ? `Canceled; access until ${formatUtcDateTime(effect.accessUntil) ?? effect.accessUntil}`
        : "Canceled";
    case "dispute": {
      const id = String(effect.disputeId ?? "");
      const amount = typeof effect.usdAmount === "string" ? ` (${formatUsdText(effect.usdAmount)})` : "";
      const dropped = Array.isArray(effect.dropped) ? effect.dropped.map(String) : [];
      const without = dropped.length > 0 ? `, without its ${dropped.join(" and ")} (not as documented)` : "";
      if (effect.status === "open")
        return `Dispute ${id} recorded as open${amount} on order ${String(effect.orderId ?? "")}${without}`;
      return `Dispute ${id} recorded as closed ${String(effect.status)}${amount}${without}`;
    }
    default:
      return "Stored";
  }
}

/**
 * The fields of an event found not to match the documented ones: when it was received (`parseIssues`), or when it was
 * processed (a field its type needs, missing: `{kind: "unprocessable", issues}`); null when none were.
 */
export function unreadableFields(event: {
  parseIssues: string[] | null;
  effect: Record<string, unknown> | null;
}): string[] | null {
  if (event.parseIssues && event.parseIssues.length > 0) return event.parseIssues;
  const issues = event.effect?.kind === "unprocessable" ? event.effect.issues : null;
  return Array.isArray(issues) && issues.length > 0 ? issues.map(String) : null;
}
