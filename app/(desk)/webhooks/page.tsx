import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import { listWebhookEvents, listWebhookEventTypes, summarizeWebhookDeliveries } from "@/db/queries/webhook-events";
import { readGameAutomation } from "@/db/queries/webhooks";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { appBaseUrl } from "@/lib/env";
import { formatCount } from "@/lib/format";
import { resolveSelectedGame } from "@/lib/games/games";
import { pageOffset, type SearchParamsInput } from "@/lib/table-state";
import { KNOWN_EVENT_TYPES, refusalLabel, WEBHOOK_EVENT_STATUSES } from "@/lib/webhooks/describe";
import { flushWebhookRefusals } from "@/lib/webhooks/refusal-counts";
import { DEFAULT_AUTOMATION } from "@/lib/webhooks/settings";
import { NoGame } from "../no-game";
import { saveAutomationAction } from "./actions";
import { AutomationForm } from "./automation-form";
import { EventsTable } from "./events-table";
import { eventTable, parseEventLogFilters } from "./table-state";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<SearchParamsInput> }) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  if (!game) {
    return (
      <>
        <PageHeader title="Webhooks" description="Signed events the service sent for this game." />
        <NoGame role={user.role} />
      </>
    );
  }
  const params = await searchParams;
  const state = eventTable.parse(params);
  const extra = parseEventLogFilters(params);
  // Refusals counted in this process but not yet written are written first, so the counters shown are current.
  await flushWebhookRefusals();
  const [events, seenTypes, deliveries, automation] = await Promise.all([
    listWebhookEvents(db, {
      gameId: game.id,
      filter: {
        eventType: extra.type,
        status: WEBHOOK_EVENT_STATUSES.find((status) => status === state.filters.status),
        subscription: state.q || undefined,
        fromMs: extra.fromMs,
        toMs: extra.toMs,
      },
      sort: state.sort,
      dir: state.dir,
      limit: state.pageSize,
      offset: pageOffset(state),
    }),
    listWebhookEventTypes(db, game.id),
    summarizeWebhookDeliveries(db, { gameId: game.id, fromDay: extra.from, toDay: extra.to }),
    readGameAutomation(db, game.id),
  ]);
  const types = [...new Set([...KNOWN_EVENT_TYPES, ...seenTypes, ...(extra.type ? [extra.type] : [])])].sort();
  const tableState = { ...state, filters: { ...state.filters, type: extra.type, from: extra.from, to: extra.to } };
  const period =
    extra.from || extra.to ? `${extra.from ?? "the first delivery"} to ${extra.to ?? "today"} (UTC days)` : "all time";
  const webhookUrl = `${appBaseUrl()}/api/webhooks/service/${encodeURIComponent(game.id)}`;

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          `Signed events the service sent for ${game.name}: every genuine event is stored once, then ` +
          `processed in the background.`
        }
      />

      <section aria-labelledby="deliveries-heading" className="mb-6">
        <h2 id="deliveries-heading" className="mb-2 text-sm font-semibold text-ink">
          Deliveries, {period}
        </h2>
        <StatGroup label="Delivery counters">
          <Stat
            label="Accepted"
            value={formatCount(deliveries.accepted)}
            hint={
              deliveries.lastAcceptedAt ? (
                <>
                  Last <DateTime value={deliveries.lastAcceptedAt} focusable={false} />
                </>
              ) : (
                "None yet"
              )
            }
          />
          <Stat
            label="Duplicates"
            value={formatCount(deliveries.duplicate)}
            hint="Retries and replays of stored events; nothing changed"
          />
          <Stat label="Refused" value={formatCount(deliveries.refused)} hint="Nothing stored; see the reasons below" />
        </StatGroup>
        {deliveries.refusedByReason.length > 0 ? (
          <SimpleTable
            caption="Refused deliveries by reason"
            className="mt-3"
            head={
              <>
                <Th>Refused because</Th>
                <Th align="right">Deliveries</Th>
                <Th>Last</Th>
              </>
            }
          >
            {deliveries.refusedByReason.map((row) => (
              <Tr key={row.reason}>
                <RowTh>
                  {refusalLabel(row.reason)} <span className="font-mono text-xs text-ink-muted">{row.reason}</span>
                </RowTh>
                <Td align="right" className="tabular-nums">
                  {formatCount(row.count)}
                </Td>
                <Td>
                  <DateTime value={row.lastAt} focusable={false} />
                </Td>
              </Tr>
            ))}
          </SimpleTable>
        ) : null}
      </section>

      <section aria-labelledby="events-heading" className="mb-8">
        <h2 id="events-heading" className="mb-2 text-sm font-semibold text-ink">
          Events
        </h2>
        <EventsTable
          rows={events.rows}
          total={events.total}
          state={tableState}
          sortColumns={eventTable.config.sortColumns}
          types={types}
        />
      </section>

      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Automatic pulls" description="Keep snapshots of this game in step with the service.">
          <AutomationForm
            action={saveAutomationAction}
            automation={automation ?? DEFAULT_AUTOMATION}
            canEdit={hasRole(user.role, "admin")}
            gameId={game.id}
          />
        </Card>
        <Card title="Webhook URL" description="Register this address for all events in the service console.">
          <p className="rounded-md border border-line bg-subtle p-2 font-mono text-xs break-all text-ink select-all">
            {webhookUrl}
          </p>
          <p className="mt-2 text-xs text-ink-muted">
            Deliveries are verified with the game&apos;s signing secret (and the previous one during a rotation); an
            admin sets them under Settings → Games.
          </p>
        </Card>
      </div>
    </>
  );
}
