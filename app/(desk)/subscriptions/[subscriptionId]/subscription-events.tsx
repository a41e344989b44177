import type { ComponentProps } from "react";
import { AttemptsTable } from "../_components/attempts-table";
import { DateTime } from "@/app/_components/ui/date-time";
import { TextLink } from "@/app/_components/ui/text-link";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import type { SubscriptionEvent } from "@/db/queries/webhook-events";
import { formatUsdText, formatUtcDateTime } from "@/lib/format";

/** A service time as every page shows one ("2026-06-01 00:00 UTC"), or as sent when it is not one. */
const readable = (iso: string) => formatUtcDateTime(iso) ?? iso;

function summary(event: SubscriptionEvent): string {
  const data = event.data;
  const text = (key: string) =>
    typeof data[key] === "string" || typeof data[key] === "number" ? String(data[key]) : null;
  switch (event.eventType) {
    case "subscription.canceled":
      // The spec: the canceled event "carries access_until"; callers revoke access then.
      return text("access_until") ? `Canceled; access until ${readable(text("access_until") ?? "")}` : "Canceled";
    case "subscription.refunded":
      return (
        `Refund of ${formatUsdText(text("amount_usd") ?? "?")} on period ` +
        `${text("period_seq") ?? "?"}${data.is_full_refund === true ? " (full)" : ""}`
      );
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
    <SimpleTable
      caption="Webhook events for this subscription"
      head={
        <>
          <Th>When</Th>
          <Th>Event</Th>
          <Th>What it says</Th>
        </>
      }
    >
      {events.map((event) => (
        <Tr key={event.id}>
          <Td className="whitespace-nowrap">
            <DateTime value={event.occurredAt ?? event.receivedAt} focusable={false} />
          </Td>
          <Td className="font-mono text-xs">
            <TextLink href={`/webhooks/${event.id}`}>{event.eventType}</TextLink>
          </Td>
          <Td>{summary(event)}</Td>
        </Tr>
      ))}
    </SimpleTable>
  );
}

/**
 * What Payout Desk itself holds on a subscription: the refunds made from it and the events received. Shown also when
 * the service does not answer for it, when support needs them most (a refund waiting for attention).
 */
export function LocalRecords({
  id,
  attempts,
  events,
}: {
  id: string;
  attempts: ComponentProps<typeof AttemptsTable>["attempts"];
  events: SubscriptionEvent[];
}) {
  return (
    <>
      <section aria-labelledby="refunds" className="flex flex-col gap-2">
        <h2 id="refunds" className="text-sm font-semibold text-ink">
          Refunds made from Payout Desk
        </h2>
        <AttemptsTable caption={`Refund attempts on ${id}`} attempts={attempts} showSubscription={false} />
      </section>

      <section aria-labelledby="events" className="flex flex-col gap-2">
        <h2 id="events" className="text-sm font-semibold text-ink">
          Events from the service
        </h2>
        <SubscriptionEvents events={events} />
      </section>
    </>
  );
}
