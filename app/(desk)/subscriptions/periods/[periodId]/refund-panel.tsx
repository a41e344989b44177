"use client";

import { useRouter } from "next/navigation";
import { useActionState, useRef, useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { useAlertWhenGone } from "@/app/_components/ui/page-alert";
import { AmountInput } from "@/app/_components/forms/input";
import { RadioChoice } from "@/app/_components/forms/radio-choice";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Textarea } from "@/app/_components/forms/textarea";
import { Badge } from "@/app/_components/ui/badge";
import { FocusHere } from "@/app/_components/ui/focus-here";
import { Button } from "@/app/_components/ui/button";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import type { ActionResult } from "@/lib/actions";
import { GAME_SWITCHED } from "@/lib/action-result";
import type { RefundImpact } from "@/lib/refunds/impact";
import { money } from "@/core/money";
import { formatUsdText } from "@/lib/format";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

/** The support limit as it stands on this period (lib/refunds/attempts.ts SupportLimitStanding). */
type SupportLimit = { limitUsd: string; usedUsd: string; availableUsd: string };

type Action<T> = (state: ActionResult<T> | null, form: FormData) => Promise<ActionResult<T>>;
type RefundData = { attemptId: string; state: string };

/**
 * The refund flow of one period: choose full or partial and a reason, review what will happen (fresh from the
 * service), then confirm. The confirm step carries the remaining amount that was reviewed, so a stale screen is sent
 * back to review (with the page's figures refreshed), and submitting twice reaches the same refund.
 */
export function RefundPanel({
  subscriptionId,
  periodId,
  periodSeq,
  remainingUsd,
  supportLimit,
  limited,
  previewAction,
  refundAction,
  gameId,
}: {
  subscriptionId: string;
  periodId: number;
  periodSeq: number;
  remainingUsd: string;
  supportLimit: SupportLimit;
  /** The viewer is below finance: refunds beyond the limit (per period, in total) need finance. */
  limited: boolean;
  previewAction: Action<RefundImpact>;
  refundAction: Action<RefundData>;
  /** The game the page was shown for, sent with each form. */
  gameId: string;
}) {
  const router = useRouter();
  // A full refund is offered when it is within what this person may still refund; otherwise only a partial one.
  const fullOffered = !limited || money(remainingUsd).lte(money(supportLimit.availableUsd));
  // The most this person may refund here: what remains, or less when support's limit leaves less.
  const mostHere = fullOffered ? remainingUsd : supportLimit.availableUsd;
  const [mode, setMode] = useState<"full" | "partial">(fullOffered ? "full" : "partial");
  const [review, setReview] = useState<{ impact: RefundImpact; reason: string } | null>(null);
  /** Counts the reviews made, so that the confirm step shows only the answer to its own review. */
  const [reviewNo, setReviewNo] = useState(0);
  const [answeredNo, setAnsweredNo] = useState<number | null>(null);
  /** Why the person was sent back from the confirm step (the period changed, or the amount is no longer possible). */
  const [sentBack, setSentBack] = useState<string | null>(null);
  /** Back from the review step: focus goes to the amount form, which replaced the button just pressed. */
  const [cameBack, setCameBack] = useState(false);
  /**
   * What was last typed, shown again after Back or a refusal at the confirm step (React resets a form after its
   * action).
   */
  const [typed, setTyped] = useState<Record<string, string>>({});

  const [previewState, preview] = useActionState(
    async (previous: ActionResult<RefundImpact> | null, form: FormData) => {
      const result = await keepTyped(previewAction)(previous, form);
      setSentBack(null);
      setCameBack(false);
      setTyped({ amountUsd: String(form.get("amountUsd") ?? ""), reason: String(form.get("reason") ?? "") });
      if (result.ok && result.data) {
        setReview({ impact: result.data, reason: String(form.get("reason") ?? "") });
        setReviewNo((n) => n + 1);
      }
      return result;
    },
    null,
  );

  // A refusal at the confirm step for a refund under way elsewhere: the page, refreshed, shows that refund instead.
  const noteRefusal = useAlertWhenGone();
  const [refundState, refund] = useActionState(async (previous: ActionResult<RefundData> | null, form: FormData) => {
    const result = await keepTyped(refundAction)(previous, form);
    setAnsweredNo(reviewNo);
    noteRefusal(null);
    if (result.ok && result.data) router.push(`/subscriptions/refunds/${result.data.attemptId}`);
    // Refused for the amount (the period changed since the review): back to the amount, with the page refreshed.
    if (!result.ok && result.fieldErrors?.amountUsd) {
      setSentBack(result.message);
      setReview(null);
      router.refresh();
    } else if (!result.ok && result.code === "CONFLICT" && result.message !== GAME_SWITCHED) {
      // Something changed on the period since the page was opened (another refund under way): the page shows it.
      // (After a game switched in another tab, a refresh would show that game: the message stays instead.)
      noteRefusal(result.message);
      router.refresh();
    }
    return result;
  }, null);
  const previewForm = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(previewForm, previewState);

  if (review) {
    const impact = review.impact;
    const back = (
      <Button
        variant="secondary"
        onClick={() => {
          noteRefusal(null);
          setReview(null);
          setCameBack(true);
        }}
      >
        Back
      </Button>
    );
    return (
      <div className="flex flex-col gap-4">
        <FocusHere>
          <h3 className="text-base font-semibold text-ink">Review the refund</h3>
        </FocusHere>
        <ImpactSummary impact={impact} />
        {!impact.refundable ? (
          <>
            <FormMessage tone="error">{impact.effects[0]}</FormMessage>
            <div>{back}</div>
          </>
        ) : (
          <form action={refund} className="flex flex-col gap-3" aria-label="Confirm the refund">
            <ShownGameField gameId={gameId} />
            <input type="hidden" name="subscriptionId" value={subscriptionId} />
            <input type="hidden" name="periodId" value={periodId} />
            <input type="hidden" name="periodSeq" value={impact.periodSeq} />
            <input type="hidden" name="amountUsd" value={impact.amountUsd} />
            <input type="hidden" name="remainingBeforeUsd" value={impact.remainingUsd} />
            <input type="hidden" name="reason" value={review.reason} />
            <ResultMessage result={answeredNo === reviewNo ? refundState : null} />
            <div className="flex flex-wrap gap-2">
              <SubmitButton variant="danger" pendingLabel="Refunding…">
                {`Refund ${formatUsdText(impact.amountUsd)}`}
              </SubmitButton>
              {back}
            </div>
            <p className="text-xs text-ink-muted">
              Sent with a request id stored before the call; pressing again, or retrying after an error, can never
              refund twice.
            </p>
          </form>
        )}
      </div>
    );
  }

  if (limited && money(supportLimit.availableUsd).isZero())
    return (
      <p className="text-ink-muted">
        Support has refunded {formatUsdText(supportLimit.usedUsd)} of this period, the most it may (
        {formatUsdText(supportLimit.limitUsd)} per period): a finance user makes any further refund.
      </p>
    );
  // Only a partial refund is offered once a full one is over what may still be refunded (the page may say so after
  // the person chose Full).
  const shownMode = fullOffered ? mode : "partial";
  const errors = previewState && !previewState.ok ? (previewState.fieldErrors ?? {}) : {};
  const values = previewState && !previewState.ok ? (previewState.values ?? typed) : typed;
  // A refusal about a field the form does not show (the amount of a full refund, over the support limit) is said above.
  const shownFields = shownMode === "partial" ? ["amountUsd", "reason"] : ["reason"];
  const saidOnAField = Object.keys(errors).some((field) => shownFields.includes(field));
  const remaining = (
    <>
      Remaining refundable: <Money value={remainingUsd} currency="USD" className="font-semibold" />
    </>
  );
  return (
    <form
      ref={previewForm}
      action={preview}
      className="flex flex-col gap-4"
      aria-label={`Refund period ${periodSeq}`}
      noValidate
    >
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="subscriptionId" value={subscriptionId} />
      <input type="hidden" name="periodId" value={periodId} />
      {sentBack ? (
        <FocusHere>
          <FormMessage tone="error">{sentBack}</FormMessage>
        </FocusHere>
      ) : null}
      {!sentBack && previewState && !previewState.ok && !saidOnAField ? (
        <FormMessage tone="error">{previewState.message}</FormMessage>
      ) : null}
      {cameBack && !sentBack ? (
        <FocusHere>
          <p className="text-ink">{remaining}</p>
        </FocusHere>
      ) : (
        <p className="text-ink">{remaining}</p>
      )}
      {fullOffered ? (
        // Uncontrolled radios: React resets a form after its action, and defaultChecked brings back the choice.
        <RadioChoice
          legend="Amount"
          name="mode"
          options={[
            { value: "full", label: `Full: everything that remains (${formatUsdText(remainingUsd)})` },
            { value: "partial", label: "Partial" },
          ]}
          value={mode}
          onChange={setMode}
        />
      ) : (
        <>
          <input type="hidden" name="mode" value="partial" />
          <p className="text-sm text-ink">
            A full refund is more than support may still refund on this period (
            {formatUsdText(supportLimit.availableUsd)}): refund part of it here, or ask a finance user.
          </p>
        </>
      )}
      {shownMode === "partial" ? (
        <Field
          label="Amount to refund (USD)"
          error={errors.amountUsd}
          required
          hint={`At most ${formatUsdText(mostHere)}${fullOffered ? "" : ", the most support may refund"}.`}
        >
          {(control) => <AmountInput {...control} name="amountUsd" defaultValue={values.amountUsd} />}
        </Field>
      ) : null}
      <Field
        label="Reason"
        error={errors.reason}
        hint="Up to 500 characters; sent to the service and kept in the audit log."
      >
        {(control) => <Textarea {...control} name="reason" maxLength={500} defaultValue={values.reason} />}
      </Field>
      {limited ? (
        <p className="text-xs text-ink-muted">
          Support may refund up to {formatUsdText(supportLimit.limitUsd)} per period, in total
          {supportLimit.usedUsd !== "0.00"
            ? `; support has already refunded ${formatUsdText(supportLimit.usedUsd)} of this period, so at most ` +
              `${formatUsdText(supportLimit.availableUsd)} more`
            : ""}
          . Beyond that, a finance user makes the refund.
        </p>
      ) : null}
      <div>
        <SubmitButton pendingLabel="Checking…">Review refund</SubmitButton>
      </div>
    </form>
  );
}

function ImpactSummary({ impact }: { impact: RefundImpact }) {
  return (
    <div className="flex flex-col gap-3">
      <KeyValueList
        items={[
          {
            label: "Refund",
            value: (
              <>
                <Money value={impact.amountUsd} currency="USD" className="font-semibold" />{" "}
                {impact.isFull ? <Badge tone="warning">full: completes the period</Badge> : <Badge>partial</Badge>}
              </>
            ),
          },
          { label: "Period amount", value: <Money value={impact.periodAmountUsd} currency="USD" /> },
          { label: "Already refunded", value: <Money value={impact.refundedToDateUsd} currency="USD" /> },
          { label: "Remaining refundable now", value: <Money value={impact.remainingUsd} currency="USD" /> },
          {
            label: "Paid with",
            value: `${impact.fundingShape === "mixed" ? "card and wallet" : impact.fundingShape} (${impact.rail} rail)`,
          },
          { label: "Back to the card", value: <Money value={impact.cardRefundUsd} currency="USD" /> },
          {
            label: "Wallet change (coins)",
            value: (
              <>
                {impact.balanceDeltaCoins.startsWith("-") ? null : "+"}
                <Money value={impact.balanceDeltaCoins} />
              </>
            ),
          },
        ]}
      />
      <ul className="list-disc rounded-md border border-line bg-subtle py-2 pr-3 pl-7 text-sm">
        {impact.effects.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <div className="rounded-md border border-line px-3 py-2">
        <h4 className="mb-1 text-sm font-semibold text-ink">Revenue share</h4>
        {impact.revenueShare ? (
          <KeyValueList
            items={[
              {
                label: "Recipient player id",
                value: <span className="font-mono">{impact.revenueShare.recipientPlayerId}</span>,
              },
              {
                label: "Attributed on this period",
                value: (
                  <>
                    {<Money value={impact.revenueShare.originalAttributedUsd} currency="USD" />} at{" "}
                    {impact.revenueShare.percentAtRenewal} %
                  </>
                ),
              },
              {
                label: "Attribution the recipient loses (estimate)",
                value: (
                  <Money value={impact.revenueShare.attributionLostUsd} currency="USD" className="font-semibold" />
                ),
              },
              {
                label: "Net attributed after",
                value: <Money value={impact.revenueShare.netAfterUsd} currency="USD" />,
              },
              {
                label: "Reported in the window",
                value:
                  `${impact.reportingWindow.month} (${impact.reportingWindow.start} to ` +
                  `${impact.reportingWindow.end}, the window of the refund)`,
              },
              {
                label: "Recipient paid, or being paid, for this period",
                value: impact.recipientAlreadyPaid
                  ? "Yes: the reversal is carried against their next payout"
                  : "No: the reversal reduces what they will be paid",
              },
              {
                label: "Partner revenue reversed (estimate)",
                value: <Money value={impact.partnerRevenueReversedUsd} currency="USD" />,
              },
              {
                label: "Card fee charged to the partner (estimate)",
                value: <Money value={impact.cardFeeChargedToPartnerUsd} currency="USD" />,
              },
            ]}
          />
        ) : (
          <p className="text-sm text-ink-muted">
            No recipient is attributed on this period; partner revenue reversed (estimate){" "}
            {formatUsdText(impact.partnerRevenueReversedUsd)}, reported in {impact.reportingWindow.month}.
          </p>
        )}
        <p className="mt-1 text-xs text-ink-muted">
          Estimates follow the service&apos;s rules; the receipt gives the exact figures.
        </p>
      </div>
    </div>
  );
}
