import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { listSubscriptionEvents } from "@/db/queries/webhook-events";
import { LocalRecords } from "./subscription-events";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { listRefundAttempts } from "@/db/queries/refunds";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { formatAmountText, formatCount, formatUsdText } from "@/lib/format";
import { resolveSelectedGame } from "@/lib/games/games";
import { describeNextCharge, isTerminalStatus } from "@/lib/lookup/cancel-outcome";
import { subscriptionSeen } from "@/lib/lookup/subscription-seen";
import { decodeParam, loadFromService } from "@/lib/lookup/load";
import { classifySearch, playerHref, subscriptionHref, upperCaseSubscriptionId } from "@/lib/lookup/search";
import { PERIOD_STATUSES } from "@/lib/service/schemas";
import { answeredForAnotherGame } from "@/lib/service/answered-game";
import { PAGE_READ_CLIENT } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";
import { NoGame } from "../../no-game";
import { changeAmountAction, changePaymentMethodAction, cancelSubscriptionAction } from "../actions";
import { SubscriptionStatusBadge, YesNo } from "../_components/badges";
import { MaybeMoney, MaybeTime } from "../_components/maybe";
import { SubscriptionActions } from "./subscription-actions";
import { BillingPeriods } from "./billing-periods";

export async function generateMetadata({ params }: Pick<Props, "params">): Promise<Metadata> {
  return recordTitle("Subscription", (await params).subscriptionId);
}

const PAGE_SIZE = 25;
const STATUS_OPTIONS = [
  { value: "", label: "All periods" },
  ...PERIOD_STATUSES.map((s) => ({ value: s, label: s[0]?.toUpperCase() + s.slice(1) })),
  { value: "paid,refunded", label: "Billed (paid or refunded)" },
];

type Props = {
  params: Promise<{ subscriptionId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function SubscriptionPage({ params, searchParams }: Props) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const raw = decodeParam((await params).subscriptionId);
  const query = await searchParams;
  const crumbs = [{ label: "Subscriptions", href: "/subscriptions" }];
  if (!game)
    return (
      <>
        <PageHeader title={raw} breadcrumbs={crumbs} />
        <NoGame role={user.role} />
      </>
    );
  const target = classifySearch(raw);
  if (target.kind !== "subscription") {
    return (
      <>
        <PageHeader title={raw} breadcrumbs={crumbs} />
        <Banner tone="danger" role="alert">{`"${raw}" is not a subscription id.`}</Banner>
      </>
    );
  }
  const id = target.subscriptionId;
  const status = STATUS_OPTIONS.some((o) => o.value === query.status) ? String(query.status ?? "") : "";
  const offset = Math.min(Math.max(Number.parseInt(String(query.offset ?? "0"), 10) || 0, 0), 100_000);

  const client = await serviceClientForGame(db, game.id, PAGE_READ_CLIENT);
  const [loaded, attribution, attempts] = await Promise.all([
    loadFromService("subscription", () => client.getSubscription(id, { includePlayer: true })),
    loadFromService("billing periods", () =>
      client.getSubscriptionAttribution(id, {
        status: status ? (status.split(",") as (typeof PERIOD_STATUSES)[number][]) : undefined,
        limit: PAGE_SIZE,
        offset,
      }),
    ),
    listRefundAttempts(db, { gameId: game.id, subscriptionId: id, limit: 50 }),
  ]);
  const events = await listSubscriptionEvents(db, game.id, id, { limit: 50 });
  // Not found as typed: the id in the service's upper case (one pasted in lower case is the same subscription).
  const upperId = !loaded.ok && loaded.notFound ? upperCaseSubscriptionId(id) : null;
  if (upperId && (await loadFromService("subscription", () => client.getSubscription(upperId))).ok)
    redirect(subscriptionHref(upperId));
  // Another game's subscription (its secret saved for this game): refused, never shown or acted on from here.
  const otherGame = loaded.ok ? loaded.value.subscription.game_id : game.id;
  if (!loaded.ok || otherGame !== game.id) {
    return (
      <>
        <PageHeader title={id} breadcrumbs={crumbs} />
        {!loaded.ok && loaded.notFound ? (
          <EmptyState title="No such subscription">
            The service has no subscription {id} for {game.name}. Check the id, or switch game.
          </EmptyState>
        ) : (
          <Banner tone="danger" role="alert">
            {loaded.ok ? `${answeredForAnotherGame(otherGame, game.id)}.` : loaded.message}
          </Banner>
        )}
        {/* The service not answering: what the desk itself holds on the subscription is still shown. */}
        {!loaded.ok && !loaded.notFound ? (
          <div className="mt-6 flex flex-col gap-6">
            <LocalRecords id={id} attempts={attempts} events={events} />
          </div>
        ) : null}
      </>
    );
  }
  const sub = loaded.value.subscription;
  const player = loaded.value.player ?? null;
  const playerEmail = player && typeof player.player_email === "string" ? player.player_email : null;
  const cards =
    playerEmail && hasRole(user.role, "finance")
      ? await loadFromService("cards", () => client.listPlayerCards(playerEmail))
      : null;
  const terminal = isTerminalStatus(sub.status);
  const nextCharge = describeNextCharge(sub);
  const hrefFor = (next: number) => {
    const search = new URLSearchParams();
    if (status) search.set("status", status);
    if (next > 0) search.set("offset", String(next));
    const text = search.toString();
    return `${subscriptionHref(id)}${text ? `?${text}` : ""}`;
  };

  return (
    <>
      <PageHeader
        title={<span className="font-mono">{id}</span>}
        breadcrumbs={[...crumbs, ...(playerEmail ? [{ label: playerEmail, href: playerHref(playerEmail) }] : [])]}
        meta={<SubscriptionStatusBadge status={sub.status} cancelAtPeriodEnd={sub.cancel_at_period_end} />}
        description={
          `${sub.item_name} · ${formatUsdText(sub.amount_usd)} every ${every(sub.interval, sub.interval_count)}` +
          ` · ${sub.funding_rail}${sub.wallet_only ? ", wallet only" : ""}`
        }
        actions={
          hasRole(user.role, "support") ? (
            <SubscriptionActions
              subscription={{
                gameId: game.id,
                subscriptionId: sub.subscription_id,
                status: sub.status,
                terminal,
                amountUsd: sub.amount_usd,
                pendingAmountUsd: sub.pending_amount_usd,
                paidThrough: sub.paid_through,
                currentPeriodStart: sub.current_period_start,
                currentPeriodEnd: sub.current_period_end,
                cancelAtPeriodEnd: sub.cancel_at_period_end,
                nextChargeAt: sub.next_charge_at,
                seen: subscriptionSeen(sub),
                fundingRail: sub.funding_rail,
                walletOnly: sub.wallet_only,
                hasPaymentMethod: sub.has_payment_method,
              }}
              cards={
                cards?.ok
                  ? cards.value.cards.map((c) => ({
                      id: c.id,
                      label:
                        `${c.brand} •••• ${c.last_four}, expires ` +
                        `${String(c.exp_month).padStart(2, "0")}/${c.exp_year}`,
                    }))
                  : null
              }
              canCancel
              canChange={hasRole(user.role, "finance")}
              cancelAction={cancelSubscriptionAction}
              amountAction={changeAmountAction}
              paymentMethodAction={changePaymentMethodAction}
            />
          ) : undefined
        }
      />
      <div className="flex flex-col gap-6">
        {sub.cancel_at_period_end && !terminal ? (
          <Banner tone="warning" title="Canceled: ends at the end of the paid period">
            Active until <MaybeTime value={sub.paid_through} />, then it ends. The player is not charged again.
          </Banner>
        ) : null}
        {sub.pending_amount_usd ? (
          <Banner
            tone="info"
            title={`Price change staged: ${formatUsdText(sub.amount_usd)} → ${formatUsdText(sub.pending_amount_usd)}`}
          >
            It applies at the next successful renewal; an increase above double the last agreed price or above USD
            500.00 stays staged and is never applied.
          </Banner>
        ) : null}
        <div className="grid gap-4 lg:grid-cols-2">
          <Card title="Subscription">
            <KeyValueList
              items={[
                { label: "Status", value: sub.status },
                { label: "Item", value: `${sub.item_name} (${sub.item_id})` },
                { label: "Price", value: <Money value={sub.amount_usd} currency="USD" /> },
                { label: "Staged price", value: <MaybeMoney value={sub.pending_amount_usd} currency="USD" /> },
                { label: "Interval", value: `${sub.interval_count} × ${sub.interval}` },
                {
                  label: "Current period",
                  value: (
                    <>
                      <MaybeTime value={sub.current_period_start} />
                      {" → "}
                      <MaybeTime value={sub.current_period_end} />
                    </>
                  ),
                },
                { label: "Period number", value: sub.period_seq },
                { label: "Paid through (access)", value: <MaybeTime value={sub.paid_through} /> },
                { label: nextCharge.label, value: nextCharge.note ?? <MaybeTime value={nextCharge.at} /> },
                ...(sub.cancel_at_period_end && !terminal
                  ? [{ label: "Access until", value: <MaybeTime value={sub.paid_through} /> }]
                  : []),
                { label: "Cancels at period end", value: <YesNo value={sub.cancel_at_period_end} /> },
                { label: "Canceled at", value: <MaybeTime value={sub.canceled_at} /> },
                { label: "Ended at", value: <MaybeTime value={sub.ended_at} /> },
                { label: "Trial ends", value: <MaybeTime value={sub.trial_end} /> },
                { label: "Funding rail", value: sub.funding_rail },
                { label: "pcstore agreement", value: sub.pcstore_agreement_status },
                { label: "Wallet only", value: <YesNo value={sub.wallet_only} /> },
                { label: "Card attached", value: <YesNo value={sub.has_payment_method} /> },
                { label: "Player id", value: <span className="font-mono">{sub.player_id}</span> },
                {
                  label: "Player email",
                  value: playerEmail ? <TextLink href={playerHref(playerEmail)}>{playerEmail}</TextLink> : null,
                },
                { label: "Game", value: <span className="font-mono">{sub.game_id}</span> },
                {
                  label: "Client request id",
                  value: <span className="font-mono text-xs">{sub.client_request_id}</span>,
                },
                { label: "Created", value: <MaybeTime value={sub.created_at} /> },
                { label: "Updated", value: <MaybeTime value={sub.updated_at} /> },
              ]}
            />
          </Card>
          <div className="flex flex-col gap-4">
            <Card title="Revenue share">
              {sub.revenue_share ? (
                <KeyValueList
                  items={[
                    {
                      label: "Recipient player id",
                      value: <span className="font-mono">{sub.revenue_share.recipient_player_id}</span>,
                    },
                    { label: "Percent", value: `${sub.revenue_share.percent} %` },
                    {
                      label: "Applies to",
                      value:
                        attribution.ok && attribution.value.current_revenue_share
                          ? attribution.value.current_revenue_share.applies_to.replaceAll("_", " ")
                          : "future renewals only",
                    },
                    { label: "Settled by the service", value: "No: the partner pays recipients" },
                    ...(attribution.ok && attribution.value.current_revenue_share?.note
                      ? [{ label: "Note", value: attribution.value.current_revenue_share.note }]
                      : []),
                  ]}
                />
              ) : (
                <p className="text-ink-muted">No revenue share on this subscription.</p>
              )}
            </Card>
            <Card title="Metadata and consent">
              <CodeBlock
                label="Subscription metadata and consent"
                value={{ metadata: sub.metadata, consent: sub.consent }}
              />
            </Card>
          </div>
        </div>

        {attribution.ok && attribution.value.lifetime_totals ? (
          <section aria-labelledby="lifetime" className="flex flex-col gap-2">
            <h2 id="lifetime" className="text-sm font-semibold text-ink">
              Lifetime
            </h2>
            <StatGroup label="Lifetime totals">
              <Stat label="Renewals settled" value={formatCount(attribution.value.lifetime_totals.renewals_settled)} />
              <Stat
                label="Settled gross (USD)"
                value={<Money value={attribution.value.lifetime_totals.settled_gross_usd} />}
              />
              <Stat
                label="Partner revenue (USD)"
                value={<Money value={attribution.value.lifetime_totals.partner_revenue_usd} />}
                hint={`reversed ${formatAmountText(attribution.value.lifetime_totals.partner_revenue_reversed_usd)}`}
              />
              <Stat
                label="Net attributed (USD)"
                value={<Money value={attribution.value.lifetime_totals.net_attributed_usd} />}
                hint={
                  `gross ${formatAmountText(attribution.value.lifetime_totals.gross_attributed_usd)}, reversed ` +
                  `${formatAmountText(attribution.value.lifetime_totals.reversed_attributed_usd)}`
                }
              />
              <Stat
                label="Refund events"
                value={formatCount(attribution.value.lifetime_totals.refund_events_in_window)}
              />
            </StatGroup>
          </section>
        ) : null}

        <BillingPeriods
          id={id}
          attribution={attribution}
          status={status}
          statusOptions={STATUS_OPTIONS}
          offset={offset}
          pageSize={PAGE_SIZE}
          action={subscriptionHref(id)}
          hrefFor={hrefFor}
          canRefund={hasRole(user.role, "support")}
        />

        <LocalRecords id={id} attempts={attempts} events={events} />
      </div>
    </>
  );
}

/** "month", or "3 months": the billing interval in words. */
function every(interval: string, count: number): string {
  return count > 1 ? `${count} ${interval}s` : interval;
}
