import { DateTime } from "@/app/_components/ui/date-time";
import { TextLink } from "@/app/_components/ui/text-link";
import type { SubscriptionEvent } from "@/db/queries/webhooks";
import { formatUsdText } from "@/lib/format";

function summary(event: SubscriptionEvent): string {
  const data = event.data;
  const text = (key: string) => (typeof data[key] === "string" || typeof data[key] === "number" ? String(data[key]) : null);
  switch (event.eventType) {
    case "subscription.canceled":
      // The spec: the canceled event "carries access_until"; callers revoke access then.
      return text("access_until") ? `Canceled; access until ${text("access_until")}` : "Canceled";
    case "subscription.refunded":
      return `Refund of ${formatUsdText(text("amount_usd") ?? "?")} on period ${text("period_seq") ?? "?"}${data.is_full_refund === true ? " (full)" : ""}`;
    case "subscription.renewed":
      return `Renewed${text("period_seq") ? `, period ${text("period_seq")}` : ""}`;
    default:
      return event.eventType;
  }
}

/** The service's webhook events about one subscription, newest first (cancellations, refunds, renewals). */
export function SubscriptionEvents({ events }: { events: SubscriptionEvent[] }) {
  if (events.length === 0) {
    return <p className="text-sm text-ink-muted">No webhook events received for this subscription yet.</p>;
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-line bg-surface focus-visible:outline-2 focus-visible:outline-accent" tabIndex={0} role="region" aria-label="Webhook events for this subscription">
      <table className="min-w-full text-sm">
        <caption className="sr-only">Webhook events for this subscription</caption>
        <thead className="bg-subtle text-left text-ink-muted">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">When</th>
            <th scope="col" className="px-3 py-2 font-medium">Event</th>
            <th scope="col" className="px-3 py-2 font-medium">What it says</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id} className="border-t border-line">
              <td className="whitespace-nowrap px-3 py-2">
                <DateTime value={event.occurredAt ?? event.receivedAt} focusable={false} />
              </td>
              <td className="px-3 py-2 font-mono text-xs">
                <TextLink href={`/webhooks/${event.id}`}>{event.eventType}</TextLink>
              </td>
              <td className="px-3 py-2">{summary(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
