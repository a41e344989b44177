import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { HeadCells, MoneyTd } from "@/app/_components/table/columns";
import { RefreshWhileMounted } from "@/app/_components/ui/refresh-while-mounted";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { findOpenAttemptForPeriod, listRefundAttempts } from "@/db/queries/refunds";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { decodeParam, loadFromService } from "@/lib/lookup/load";
import { classifySearch, playerHref, refundAttemptHref, subscriptionHref } from "@/lib/lookup/search";
import { periodRefundOutlook, readSupportLimitStanding } from "@/lib/refunds/attempts";
import { BLOCKER_HINTS, noMintOrderNote } from "@/lib/refunds/impact";
import { anotherGameAnswered, answeredForAnotherGame } from "@/lib/service/answered-game";
import { PAGE_READ_CLIENT } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";
import { NoGame } from "../../../no-game";
import { previewRefundAction, refundAction } from "../../actions";
import { AttemptsTable } from "../../_components/attempts-table";
import { PeriodStatusBadge, YesNo } from "../../_components/badges";
import { MaybeMoney, MaybeTime } from "../../_components/maybe";
import { EmptyRow, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import { RefundPanel } from "./refund-panel";
import { countOf, formatUsdText } from "@/lib/format";
import { describePartnerReversalBasis, describeRefundEventsBasis } from "@/lib/lookup/plain-words";

type Props = { params: Promise<{ periodId: string }> };
export const generateMetadata = async ({ params }: Props): Promise<Metadata> =>
  recordTitle("Billing period", (await params).periodId);

export default async function PeriodPage({ params }: Props) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const raw = decodeParam((await params).periodId);
  const crumbs = [{ label: "Subscriptions", href: "/subscriptions" }];
  const shownInstead = (title: string, content: ReactNode) => (
    <>
      <PageHeader title={`Period ${title}`} breadcrumbs={crumbs} />
      {content}
    </>
  );
  const refused = (title: string, message: string) =>
    shownInstead(
      title,
      <Banner tone="danger" role="alert">
        {message}
      </Banner>,
    );
  if (!game) return shownInstead(raw, <NoGame role={user.role} />);
  const target = classifySearch(raw);
  if (target.kind !== "period") return refused(raw, `"${raw}" is not a period id.`);
  const client = await serviceClientForGame(db, game.id, PAGE_READ_CLIENT);
  const loaded = await loadFromService("billing period", () => client.getPeriodReport(target.periodId));
  if (!loaded.ok && loaded.notFound)
    return shownInstead(
      String(target.periodId),
      <EmptyState title="No such period">
        The service has no billing period {target.periodId} for {game.name}.
      </EmptyState>,
    );
  if (!loaded.ok) return refused(String(target.periodId), loaded.message);
  const report = loaded.value;
  const period = report.period;
  const subscriptionId = report.period.subscription_id;
  const [subscription, attempts, open, limit] = await Promise.all([
    loadFromService("subscription", () => client.getSubscription(subscriptionId, { includePlayer: true })),
    listRefundAttempts(db, { gameId: game.id, subscriptionId, periodSeq: period.period_seq }),
    findOpenAttemptForPeriod(db, game.id, subscriptionId, period.period_seq),
    readSupportLimitStanding(db, { gameId: game.id, subscriptionId, periodSeq: period.period_seq }),
  ]);
  // The period of another game's subscription (that game's secret saved for this one): refused, never shown or acted
  // on, like the subscription. Its subscription unread, whose it is is not known: not shown either.
  if (!subscription.ok) return refused(String(target.periodId), subscription.message);
  const otherGame = anotherGameAnswered([subscription.value.subscription.game_id], game.id);
  if (otherGame !== null) return refused(String(target.periodId), `${answeredForAnotherGame(otherGame, game.id)}.`);
  const player = subscription.value.player ?? null;
  const playerEmail = player && typeof player.player_email === "string" ? player.player_email : null;
  const impact = await periodRefundOutlook(db, game.id, report);
  // Below finance, refunds on a period are limited in total (lib/refunds/attempts.ts): what is left of it decides.
  const limited = !hasRole(user.role, "finance");
  const legs = report.fee_legs;
  const attribution = period.attribution;
  const reconciliation = period.reconciliation;

  return (
    <>
      <PageHeader
        title={`${report.period.item_name}, period ${period.period_seq}`}
        breadcrumbs={[
          ...crumbs,
          ...(playerEmail ? [{ label: playerEmail, href: playerHref(playerEmail) }] : []),
          { label: subscriptionId, href: subscriptionHref(subscriptionId) },
        ]}
        meta={
          <PeriodStatusBadge
            status={period.status}
            partlyRefunded={report.refunds.refund_count > 0 && period.status !== "refunded"}
          />
        }
        description={
          <>
            Period id <span className="font-mono">{period.period_id}</span> of{" "}
            <TextLink href={subscriptionHref(subscriptionId)} className="font-mono">
              {subscriptionId}
            </TextLink>
          </>
        }
      />
      <div className="flex flex-col gap-6">
        <StatGroup label="Period figures">
          <Stat label="Amount (USD)" value={<Money value={period.amount_usd} />} hint="price at the charge" />
          <Stat
            label="Refunded to date (USD)"
            value={<Money value={report.refunds.refunded_to_date_usd} />}
            hint={countOf(report.refunds.refund_count, "refund event")}
          />
          <Stat
            label="Remaining refundable (USD)"
            value={<Money value={impact.remainingUsd} />}
            hint={impact.blocker ? BLOCKER_HINTS[impact.blocker] : undefined}
          />
          <Stat
            label="Partner revenue after fees (USD)"
            value={<Money value={legs.partner_revenue_after_fees_usd} />}
          />
          <Stat
            label="Attributed (USD)"
            value={attribution ? <Money value={attribution.attributed_amount_usd} /> : "—"}
            hint={
              attribution
                ? `recipient ${attribution.recipient_player_id}`
                : (period.attribution_unavailable_reason?.replaceAll("_", " ") ?? "no revenue share")
            }
          />
        </StatGroup>

        {open ? (
          <Banner
            tone={open.status === "pending" ? "info" : "danger"}
            role="status"
            title={
              open.status === "pending"
                ? "A refund on this period is pending"
                : "A refund on this period needs manual attention"
            }
            action={<TextLink href={refundAttemptHref(open.id)}>Open it</TextLink>}
          >
            {formatUsdText(open.amountUsd)} by {open.actorEmail ?? "the system"}. Nothing else can be refunded on this
            period until it is settled.
            {open.status === "pending" ? <RefreshWhileMounted /> : null}
          </Banner>
        ) : null}

        {hasRole(user.role, "support") ? (
          <section id="refund" aria-labelledby="refund-heading" className="scroll-mt-4">
            <Card title={<span id="refund-heading">Refund this period</span>}>
              {!impact.refundable ? (
                <p className="text-ink-muted">{impact.effects[0]}</p>
              ) : open ? (
                <p className="text-ink-muted">A refund on this period is not finished yet; open it above.</p>
              ) : (
                <RefundPanel
                  subscriptionId={subscriptionId}
                  periodId={period.period_id}
                  periodSeq={period.period_seq}
                  remainingUsd={impact.remainingUsd}
                  supportLimit={limit}
                  limited={limited}
                  previewAction={previewRefundAction}
                  refundAction={refundAction}
                  gameId={game.id}
                />
              )}
            </Card>
          </section>
        ) : null}

        <div className="grid gap-4 lg:grid-cols-2">
          <Card title="Period">
            <KeyValueList
              items={[
                { label: "Status", value: period.status },
                {
                  label: "Window",
                  value: (
                    <>
                      <MaybeTime value={period.period_start} /> → <MaybeTime value={period.period_end} />
                    </>
                  ),
                },
                { label: "Paid at", value: <MaybeTime value={period.paid_at} /> },
                { label: "Transaction id", value: <span className="font-mono text-xs">{period.transaction_id}</span> },
                {
                  label: "Mint order id",
                  value: period.mint_order_id ? (
                    <span className="font-mono text-xs">{period.mint_order_id}</span>
                  ) : (
                    noMintOrderNote(period)
                  ),
                },
                { label: "Funding rail", value: period.funding?.rail },
                {
                  label: "Card charged",
                  value: <MaybeMoney value={period.funding?.card_charged_usd} currency="USD" />,
                },
                {
                  label: "pcstore charged",
                  value: <MaybeMoney value={period.funding?.pcstore_charged_usd} currency="USD" />,
                },
                {
                  label: "Wallet applied (coins)",
                  value: <MaybeMoney value={period.funding?.balance_applied_coins} />,
                },
                { label: "Coins", value: <MaybeMoney value={period.funding?.amount_coins} /> },
                {
                  label: "Charge attempts",
                  value: `${report.charge.attempts_for_period}${
                    report.charge.paid_attempt_no ? `, paid on attempt ${report.charge.paid_attempt_no}` : ""
                  }`,
                },
                { label: "Paid attempt at", value: <MaybeTime value={report.charge.paid_attempt_at} /> },
                { label: "Charge outcome", value: report.charge.outcome },
              ]}
            />
          </Card>
          <Card title="Fee legs" description={legs.note ?? undefined}>
            <KeyValueList
              items={[
                {
                  label: `Service fee (${legs.invo_fee_percent} %)`,
                  value: <Money value={legs.invo_fee_usd} currency="USD" />,
                },
                {
                  label: `Partner revenue settled (${legs.partner_revenue_percent} %)`,
                  value: <Money value={legs.partner_revenue_settled_usd} currency="USD" />,
                },
                {
                  label: "Partner revenue reversed",
                  value: <Money value={legs.partner_revenue_reversed_usd} currency="USD" />,
                },
                {
                  label: "Partner revenue (net of reversal)",
                  value: <Money value={legs.partner_revenue_usd} currency="USD" />,
                },
                { label: "Partner leg reversed", value: <YesNo value={legs.partner_leg_reversed} /> },
                {
                  label: "Pass-through fees (international card)",
                  value: <Money value={legs.pass_through_fees_usd} currency="USD" />,
                },
                { label: "Chargeback fees", value: <Money value={legs.chargeback_fees_usd} currency="USD" /> },
                {
                  label: "Disputed amount held",
                  value: <Money value={legs.disputed_amount_held_usd} currency="USD" />,
                },
                {
                  label: "Card fee charged to the partner",
                  value: <MaybeMoney value={legs.card_fee_charged_to_partner_usd} currency="USD" />,
                },
                {
                  label: "Partner revenue after fees",
                  value: <Money value={legs.partner_revenue_after_fees_usd} currency="USD" />,
                },
                { label: "Source", value: legs.source },
              ]}
            />
          </Card>
          <Card title="Attribution">
            {attribution ? (
              <KeyValueList
                items={[
                  {
                    label: "Recipient player id",
                    value: <span className="font-mono">{attribution.recipient_player_id}</span>,
                  },
                  {
                    label: "Recipient",
                    value: attribution.recipient?.player_email ?? attribution.recipient?.player_name ?? null,
                  },
                  { label: "Percent at renewal", value: `${attribution.percent_at_renewal} %` },
                  {
                    label: "Base (after the service fee)",
                    value: <Money value={attribution.base_usd} currency="USD" />,
                  },
                  { label: "Attributed", value: <Money value={attribution.attributed_amount_usd} currency="USD" /> },
                  { label: "Settled by the service", value: "No: the partner pays recipients" },
                ]}
              />
            ) : (
              <p className="text-ink-muted">
                No attribution:{" "}
                {period.attribution_unavailable_reason?.replaceAll("_", " ") ?? "no revenue share configured"}.
              </p>
            )}
          </Card>
          <Card title="Reconciliation">
            {reconciliation ? (
              <KeyValueList
                items={[
                  { label: "Checked", value: <YesNo value={reconciliation.checked} /> },
                  {
                    label: "Expected base",
                    value: <MaybeMoney value={reconciliation.expected_base_usd} currency="USD" />,
                  },
                  {
                    label: "Recorded base",
                    value: <MaybeMoney value={reconciliation.recorded_base_usd} currency="USD" />,
                  },
                  {
                    label: "Base matches the settled fee",
                    value:
                      reconciliation.base_matches_settled_fee === false ? (
                        <span className="font-medium text-danger">
                          No: the attributed figure stays the recorded snapshot
                        </span>
                      ) : (
                        <YesNo value={reconciliation.base_matches_settled_fee} />
                      ),
                  },
                ]}
              />
            ) : (
              <p className="text-ink-muted">Not reconciled (never paid).</p>
            )}
          </Card>
        </div>

        <section aria-labelledby="refund-events" className="flex flex-col gap-2">
          <h2 id="refund-events" className="text-sm font-semibold text-ink">
            Refund events
          </h2>
          <p className="text-xs text-ink-muted">
            {`Figures are ${describeRefundEventsBasis(report.refunds.basis).text}.`}{" "}
            <span className="font-mono">({report.refunds.basis})</span>
          </p>
          <SimpleTable
            nowrapHead
            caption="Refund events of this period, each with the cumulative amounts before and after"
            head={
              <HeadCells
                columns={[
                  "Refunded at",
                  ["Amount (USD)", "right"],
                  ["Cumulative before (USD)", "right"],
                  ["Cumulative after (USD)", "right"],
                  "Full",
                  ["Attribution reversed (USD)", "right"],
                  ["Partner revenue reversed (USD)", "right"],
                  "Reversal",
                  "Transaction",
                ]}
              />
            }
          >
            {report.refunds.events.length === 0 ? (
              <EmptyRow colSpan={9}>No refunds on this period.</EmptyRow>
            ) : (
              report.refunds.events.map((e, index) => (
                <Tr key={`${e.refund_transaction_id ?? index}`}>
                  <Td>
                    <MaybeTime value={e.refunded_at} focusable={false} />
                  </Td>
                  <MoneyTd value={e.refunded_amount_usd} />
                  <MoneyTd value={e.cumulative_refunded_before_usd} />
                  <MoneyTd value={e.cumulative_refunded_after_usd} />
                  <Td>
                    <YesNo value={e.is_full_refund} />
                  </Td>
                  <MoneyTd value={e.reversed_attributed_usd} />
                  <MoneyTd value={e.partner_revenue_reversed_usd} />
                  <Td className="min-w-52">
                    {describePartnerReversalBasis(e.partner_revenue_reversal_basis).text}
                    <span className="block font-mono text-xs text-ink-muted">{e.partner_revenue_reversal_basis}</span>
                  </Td>
                  <Td className="font-mono text-xs">{e.refund_transaction_id ?? "—"}</Td>
                </Tr>
              ))
            )}
          </SimpleTable>
        </section>

        <section aria-labelledby="attempts" className="flex flex-col gap-2">
          <h2 id="attempts" className="text-sm font-semibold text-ink">
            Refunds of this period made from Payout Desk
          </h2>
          <AttemptsTable caption="Refund attempts on this period" attempts={attempts} showSubscription={false} />
        </section>
      </div>
    </>
  );
}
