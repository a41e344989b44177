import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { findRefundAttempt } from "@/db/queries/refunds";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { decodeParam } from "@/lib/lookup/load";
import { periodHref, playerHref, subscriptionHref } from "@/lib/lookup/search";
import { refundReceiptSchema } from "@/lib/service/schemas";
import { monthKeyOf, parseServiceInstant } from "@/lib/time";
import { NoGame } from "../../../no-game";
import { resolveRefundAttemptAction, retryRefundAttemptAction } from "../../actions";
import { AttemptStatusBadge, YesNo } from "../../_components/badges";
import { RefreshWhileMounted } from "@/app/_components/ui/refresh-while-mounted";
import { MaybeMoney, MaybeTime } from "../../_components/maybe";
import { ResolveForm, RetryForm } from "./attempt-actions";
import { formatUsdText } from "@/lib/format";
import { FocusHere } from "@/app/_components/ui/focus-here";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return recordTitle("Refund", (await params).attemptId.slice(0, 8));
}

type Props = { params: Promise<{ attemptId: string }> };

/** The month whose window holds a refund, read as the service's timestamps are (UTC when it names no zone). */
function reportedIn(refundedAt: string): string {
  const at = parseServiceInstant(refundedAt);
  return at === null ? "unknown (refunded_at is not a date)" : `${monthKeyOf(at)} (the window holding refunded_at)`;
}

export default async function RefundAttemptPage({ params }: Props) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const id = decodeParam((await params).attemptId);
  const crumbs = [{ label: "Subscriptions", href: "/subscriptions" }];
  if (!game)
    return (
      <>
        <PageHeader title="Refund" breadcrumbs={crumbs} />
        <NoGame role={user.role} />
      </>
    );
  const attempt = await findRefundAttempt(db, game.id, id);
  if (!attempt) {
    return (
      <>
        <PageHeader title="Refund" breadcrumbs={crumbs} />
        <EmptyState title="No such refund">
          There is no refund attempt {id} for {game.name}. One made for another game (the audit log lists every game's)
          opens once that game is selected in the sidebar.
        </EmptyState>
      </>
    );
  }
  const parsed = attempt.receipt ? refundReceiptSchema.safeParse(attempt.receipt) : null;
  const receipt = parsed?.success ? parsed.data : null;
  const share = receipt?.revenue_share_attribution ?? null;
  const title = `Refund of ${formatUsdText(attempt.amountUsd)}`;

  return (
    <>
      <PageHeader
        title={title}
        meta={<AttemptStatusBadge status={attempt.status} calls={attempt.calls} />}
        breadcrumbs={[
          ...crumbs,
          ...(attempt.playerEmail ? [{ label: attempt.playerEmail, href: playerHref(attempt.playerEmail) }] : []),
          { label: attempt.subscriptionId, href: subscriptionHref(attempt.subscriptionId) },
          ...(attempt.periodId !== null
            ? [{ label: `Period ${attempt.periodSeq}`, href: periodHref(attempt.periodId) }]
            : []),
        ]}
        description={
          <>
            Request id <span className="font-mono">{attempt.clientRequestId}</span>
          </>
        }
      />
      <div className="flex flex-col gap-6">
        {/* The result of the refund the person just made (or opened): focused, so it is read out. */}
        <FocusHere label="Refund result">
          {attempt.status === "succeeded" ? (
            <Banner
              tone="success"
              role="status"
              title={`Refunded ${formatUsdText(receipt?.refunded_amount_usd ?? attempt.amountUsd)}`}
            >
              {receipt?.new_balance !== undefined && receipt?.new_balance !== null ? (
                <>
                  Player&apos;s balance after the refund: <Money value={receipt.new_balance} /> coins.{" "}
                </>
              ) : null}
              {attempt.idempotentReplay
                ? "Confirmed by the service from an earlier call with the same request id; nothing was refunded twice."
                : null}
              {!receipt ? " The service no longer had the receipt; it confirmed the transaction id only." : null}
            </Banner>
          ) : attempt.status === "pending" ? (
            <Banner tone="info" role="status" title="Pending: the service has not confirmed this refund yet">
              {attempt.lastErrorMessage ?? "It is being sent."} It is retried automatically every minute with the same
              request id and parameters, so it can never be made twice. This page shows its outcome once known.
              <RefreshWhileMounted />
            </Banner>
          ) : attempt.status === "needs_attention" ? (
            <Banner tone="danger" role="alert" title="Needs manual attention">
              {attempt.lastErrorMessage} Nothing else can be refunded on this period until a finance user marks it
              settled on this page.
            </Banner>
          ) : attempt.status === "failed" ? (
            <Banner
              tone="warning"
              role="status"
              title={attempt.calls === 0 ? "Not sent: review the refund again" : "Refused by the service"}
            >
              {attempt.lastErrorMessage}
            </Banner>
          ) : (
            <Banner
              tone="neutral"
              role="status"
              title={
                attempt.resolutionOutcome === "refunded"
                  ? "Settled by hand: refunded"
                  : attempt.resolutionOutcome === "not_refunded"
                    ? "Settled by hand: nothing refunded"
                    : "Settled by hand"
              }
            >
              {attempt.resolutionNote} ({attempt.resolvedBy})
            </Banner>
          )}
        </FocusHere>

        {hasRole(user.role, "support") ? (
          <RetryForm
            attemptId={attempt.id}
            action={retryRefundAttemptAction}
            pending={attempt.status === "pending"}
            gameId={game.id}
          />
        ) : null}
        {hasRole(user.role, "finance") ? (
          <ResolveForm
            attemptId={attempt.id}
            action={resolveRefundAttemptAction}
            gameId={game.id}
            open={attempt.status === "needs_attention"}
          />
        ) : null}

        <div className="grid gap-4 lg:grid-cols-2">
          <Card title="Request">
            <KeyValueList
              items={[
                {
                  label: "Subscription",
                  value: (
                    <TextLink href={subscriptionHref(attempt.subscriptionId)} className="font-mono">
                      {attempt.subscriptionId}
                    </TextLink>
                  ),
                },
                {
                  label: "Period",
                  value:
                    attempt.periodId !== null ? (
                      <TextLink
                        href={periodHref(attempt.periodId)}
                      >{`#${attempt.periodSeq} (id ${attempt.periodId})`}</TextLink>
                    ) : (
                      `#${attempt.periodSeq}`
                    ),
                },
                { label: "Amount", value: <Money value={attempt.amountUsd} currency="USD" /> },
                { label: "Full refund", value: <YesNo value={attempt.isFull} /> },
                {
                  label: "Remaining when reviewed",
                  value: <Money value={attempt.remainingBeforeUsd} currency="USD" />,
                },
                { label: "Reason", value: attempt.reason },
                {
                  label: "Requested by",
                  value: attempt.actorEmail ? `${attempt.actorEmail} (${attempt.actorRole})` : "system",
                },
                { label: "Requested at", value: <MaybeTime value={attempt.createdAt} /> },
                { label: "Request id", value: <span className="font-mono text-xs">{attempt.clientRequestId}</span> },
                { label: "Calls from Payout Desk", value: `${attempt.calls} (each with its own quick retries)` },
                { label: "Last call", value: <MaybeTime value={attempt.lastCalledAt} /> },
                { label: "Period checked before sending", value: <MaybeTime value={attempt.periodCheckedAt} /> },
                {
                  label: "Last error",
                  value: attempt.lastErrorCode ? (
                    <span className="font-mono text-xs">{attempt.lastErrorCode}</span>
                  ) : null,
                },
                { label: "Finished at", value: <MaybeTime value={attempt.completedAt} /> },
              ]}
            />
          </Card>
          <Card title="Receipt" description={receipt ? "As the service returned it." : undefined}>
            {receipt ? (
              <KeyValueList
                items={[
                  { label: "Status", value: receipt.status },
                  { label: "Idempotent replay", value: <YesNo value={receipt.idempotent_replay} /> },
                  { label: "Refund key", value: <span className="font-mono text-xs">{receipt.refund_key}</span> },
                  {
                    label: "Transaction id",
                    value: <span className="font-mono text-xs">{receipt.transaction_id}</span>,
                  },
                  { label: "Refunded", value: <Money value={receipt.refunded_amount_usd} currency="USD" /> },
                  {
                    label: "Total refunded on the period",
                    value: <Money value={receipt.total_refunded_amount_usd} currency="USD" />,
                  },
                  {
                    label: "Remaining refundable",
                    value: <Money value={receipt.remaining_refundable_usd} currency="USD" />,
                  },
                  { label: "Full refund", value: <YesNo value={receipt.is_full_refund} /> },
                  { label: "Funding shape", value: receipt.funding_shape },
                  { label: "Card refunded", value: <Money value={receipt.card_refunded_usd} currency="USD" /> },
                  {
                    label: "Wallet change (coins)",
                    value: (
                      <>
                        {receipt.balance_delta_coins.startsWith("-") ? null : "+"}
                        <Money value={receipt.balance_delta_coins} />
                      </>
                    ),
                  },
                  { label: "New balance (coins)", value: <MaybeMoney value={receipt.new_balance} /> },
                  {
                    label: "Processor refund reference",
                    value: receipt.processor_refund_reference ? (
                      <span className="font-mono text-xs">{receipt.processor_refund_reference}</span>
                    ) : null,
                  },
                  { label: "Processor refund adopted", value: <YesNo value={receipt.processor_refund_adopted} /> },
                  { label: "Service fee retained", value: <YesNo value={receipt.invo_fee_retained} /> },
                  {
                    label: "Partner revenue reversed",
                    value: <Money value={receipt.partner_revenue_reversed_usd} currency="USD" />,
                  },
                  { label: "Reversal mode", value: receipt.partner_revenue_reversal_mode },
                  {
                    label: "Card fee charged to the partner",
                    value: <MaybeMoney value={receipt.card_fee_charged_to_partner_usd} currency="USD" />,
                  },
                  { label: "Reason", value: receipt.reason },
                  { label: "Refunded at", value: <MaybeTime value={receipt.refunded_at} /> },
                  {
                    label: "Reported in the window",
                    value: reportedIn(receipt.refunded_at),
                  },
                ]}
              />
            ) : attempt.status === "succeeded" ? (
              <KeyValueList
                items={[
                  {
                    label: "Transaction id",
                    value: <span className="font-mono text-xs">{attempt.transactionId}</span>,
                  },
                  { label: "Refunded at", value: <MaybeTime value={attempt.refundedAt} /> },
                ]}
              />
            ) : (
              <p className="text-ink-muted">No receipt: the service has not confirmed a refund.</p>
            )}
          </Card>
        </div>

        {receipt ? (
          <Card
            title="Revenue share attribution"
            description="The corrected figure to pay the recipient; nothing moves at the service."
          >
            {share ? (
              <KeyValueList
                columns={2}
                items={[
                  {
                    label: "Recipient player id",
                    value: <span className="font-mono">{share.recipient_player_id}</span>,
                  },
                  { label: "Percent", value: `${share.percent} %` },
                  {
                    label: "Originally attributed",
                    value: <Money value={share.original_attributed_amount_usd} currency="USD" />,
                  },
                  {
                    label: "Refunded attribution (to date)",
                    value: <Money value={share.refunded_attributed_amount_usd} currency="USD" />,
                  },
                  { label: "Net attributed", value: <Money value={share.net_attributed_amount_usd} currency="USD" /> },
                  { label: "Settled by the service", value: "No" },
                ]}
              />
            ) : (
              <p className="text-ink-muted">No recipient was attributed on this period.</p>
            )}
          </Card>
        ) : null}

        {attempt.receipt ? (
          <Card title="Receipt as stored">
            <CodeBlock label="Refund receipt JSON" value={attempt.receipt} />
          </Card>
        ) : null}
        {attempt.lastErrorDetail ? (
          <Card title="Last error detail">
            <CodeBlock label="Last error detail" value={attempt.lastErrorDetail} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
