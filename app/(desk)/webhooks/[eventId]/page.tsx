import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { DateTime } from "@/app/_components/ui/date-time";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { getWebhookEvent } from "@/db/queries/webhook-events";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { describeEffect, EVENT_STATUS_LABELS, unreadableFields } from "@/lib/webhooks/describe";
import { NoGame } from "../../no-game";
import { retryWebhookEventAction } from "../actions";
import { RetryForm } from "./retry-form";
import { webhookEventIdSchema } from "@/lib/webhooks/event-id";

export async function generateMetadata({ params }: { params: Promise<{ eventId: string }> }): Promise<Metadata> {
  return recordTitle("Webhook event", (await params).eventId);
}

export default async function WebhookEventPage({ params }: { params: Promise<{ eventId: string }> }) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  if (!game) return <NoGame role={user.role} />;
  const { eventId } = await params;
  if (!webhookEventIdSchema.safeParse(eventId).success) notFound();
  const event = await getWebhookEvent(db, game.id, eventId);
  if (!event) notFound();
  const status = EVENT_STATUS_LABELS[event.status] ?? { label: event.status, tone: "neutral" as const };

  // Found unreadable when received, or when processed (a field its type needs, missing).
  const issues = unreadableFields(event);
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{event.eventType}</span>}
        meta={<Badge tone={status.tone}>{status.label}</Badge>}
        breadcrumbs={[{ label: "Webhooks", href: "/webhooks" }]}
        description={describeEffect(event)}
      />
      {event.status === "failed" ? (
        <Banner tone="danger" title="Processing failed" className="mb-4">
          {event.lastError ?? "Unknown error"} ({event.attempts} tries). The event is stored; a finance user processes
          it again once the cause is fixed.
        </Banner>
      ) : null}
      {hasRole(user.role, "finance") ? (
        <RetryForm
          action={retryWebhookEventAction}
          eventId={event.id}
          failed={event.status === "failed"}
          gameId={game.id}
        />
      ) : null}
      {issues ? (
        <Banner tone="warning" title="The event's data did not match the documented fields" className="mb-4">
          Nothing was changed because of it. Fields: {issues.join("; ")}
        </Banner>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Delivery">
          <KeyValueList
            items={[
              { label: "Event id", value: <span className="font-mono text-xs">{event.eventId}</span> },
              { label: "Event time", value: event.occurredAt ? <DateTime value={event.occurredAt} seconds /> : null },
              { label: "Received", value: <DateTime value={event.receivedAt} seconds /> },
              { label: "Signed at", value: <DateTime value={event.signatureTimestamp} seconds /> },
              {
                label: "Signing secret",
                value: `${event.signedWith === "current" ? "Current" : "Previous (rotation in progress)"}${
                  event.secretVersion ? `, service version ${event.secretVersion}` : ""
                }`,
              },
              { label: "Idempotency key", value: <span className="font-mono text-xs">{event.idempotencyKey}</span> },
              {
                label: "Delivery id",
                value: event.deliveryId ? <span className="font-mono text-xs">{event.deliveryId}</span> : null,
              },
            ]}
          />
        </Card>
        <Card title="What it did">
          <KeyValueList
            items={[
              {
                label: "Subscription",
                value: event.subscriptionId ? (
                  <span className="flex flex-wrap items-center gap-x-3">
                    <TextLink
                      href={`/subscriptions/${encodeURIComponent(event.subscriptionId)}`}
                      className="font-mono text-xs"
                    >
                      {event.subscriptionId}
                    </TextLink>
                    <TextLink href={`/webhooks?q=${encodeURIComponent(event.subscriptionId)}`} className="text-xs">
                      Its events
                    </TextLink>
                  </span>
                ) : null,
              },
              { label: "Outcome", value: describeEffect(event) },
              { label: "Processed", value: event.processedAt ? <DateTime value={event.processedAt} seconds /> : null },
              { label: "Tries", value: String(event.attempts) },
              {
                label: "Refund made in Payout Desk",
                value: event.refundAttempt ? (
                  <>
                    <Money value={event.refundAttempt.amountUsd} currency="USD" /> by{" "}
                    {event.refundAttempt.actorEmail ?? "an unknown user"} on{" "}
                    <DateTime value={event.refundAttempt.createdAt} /> ({event.refundAttempt.status})
                  </>
                ) : event.eventType === "subscription.refunded" ? (
                  <>
                    No: made outside Payout Desk
                    {event.clientRequestId ? (
                      <>
                        {" "}
                        (client_request_id <span className="font-mono text-xs">{event.clientRequestId}</span>)
                      </>
                    ) : null}
                  </>
                ) : null,
              },
            ]}
          />
        </Card>
      </div>
      <Card
        title="Event as received"
        description="The body exactly as the service signed it, indented for reading."
        className="mt-4"
      >
        <CodeBlock value={event.body} label="Event JSON" />
      </Card>
    </>
  );
}
