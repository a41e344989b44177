import { formatUsd, Money, money, sameAmount } from "@/lib/money";
import type { PeriodReport, RefundAlreadyProcessed } from "@/lib/service/schemas";
import { formatUsdText } from "@/lib/format";

/** What an attempt asked for, as stored before the first call. */
export type AttemptParameters = {
  subscriptionId: string;
  periodSeq: number;
  amountUsd: string;
  clientRequestId: string;
  remainingBeforeUsd: string;
  /** Refunded to date on the period when the person reviewed it, when the stored impact has it. */
  reviewedRefundedToDateUsd: string | null;
};

export type PeriodCheck =
  | { unchanged: true }
  | { unchanged: false; refundedToDateUsd: string; remainingUsd: string; reason: string };

/**
 * Whether the period, read again just before the first call, still is what the person reviewed: the same amount
 * refunded to date and the same amount left. Anything else means another refund landed in between (a second tab, a
 * colleague, the service's own tools), and the refund must be reviewed again instead of sent.
 */
export function comparePeriodWithReview(report: PeriodReport, attempt: AttemptParameters): PeriodCheck {
  const refundedToDate = money(report.refunds.refunded_to_date_usd);
  const remaining = Money.max(money(report.period.amount_usd).minus(refundedToDate), new Money(0));
  const changed = (reason: string): PeriodCheck => ({
    unchanged: false,
    refundedToDateUsd: formatUsd(refundedToDate),
    remainingUsd: formatUsd(remaining),
    reason,
  });
  if (report.period.subscription_id !== attempt.subscriptionId || report.period.period_seq !== attempt.periodSeq) {
    return changed("the service answered for another period");
  }
  if (attempt.reviewedRefundedToDateUsd !== null && !sameAmount(refundedToDate, attempt.reviewedRefundedToDateUsd)) {
    return changed("refunded to date differs");
  }
  if (!sameAmount(remaining, attempt.remainingBeforeUsd)) return changed("remaining refundable differs");
  return { unchanged: true };
}

export type ReplayConfirmation =
  | { confirmed: true; refundedAt: string | null; matchedBy: "transaction_id" | "amount" }
  | { confirmed: false; reason: string };

/**
 * Confirms the service's reduced "already processed" answer (a repeated client_request_id whose receipt was lost)
 * against the period report: "a reduced body with transaction_id and a note that the refund was already processed".
 * The body carries no amount, so it is believed only when the period holds a refund event with that transaction id
 * and this attempt's amount, or, where the service lists events without ids, an event of this attempt's amount; and
 * only an event made on what was reviewed: what it says was refunded before it is at least what the period showed
 * then (exactly that, for an event matched by amount alone). A refund of the same amount the period already showed is
 * someone else's, whatever a reply names.
 */
export function confirmReplayedRefund(
  report: PeriodReport,
  attempt: AttemptParameters,
  replay: RefundAlreadyProcessed,
): ReplayConfirmation {
  if (replay.client_request_id !== undefined && replay.client_request_id !== attempt.clientRequestId) {
    return { confirmed: false, reason: `the answer names request id ${replay.client_request_id}, not this refund's` };
  }
  if (replay.subscription_id !== undefined && replay.subscription_id !== attempt.subscriptionId) {
    return { confirmed: false, reason: `the answer names subscription ${replay.subscription_id}` };
  }
  if (report.period.subscription_id !== attempt.subscriptionId || report.period.period_seq !== attempt.periodSeq) {
    return { confirmed: false, reason: "the period report is not this refund's period" };
  }
  const events = report.refunds.events;
  const before = refundedBeforeAttempt(report, attempt);
  const byId = events.find((e) => e.refund_transaction_id === replay.transaction_id);
  if (byId) {
    if (!sameAmount(byId.refunded_amount_usd, attempt.amountUsd)) {
      return {
        confirmed: false,
        reason:
          `the period's refund ${replay.transaction_id} is ` +
          `${formatUsdText(formatUsd(byId.refunded_amount_usd))}, not ` +
          `${formatUsdText(formatUsd(attempt.amountUsd))}`,
      };
    }
    if (money(byId.cumulative_refunded_before_usd).lessThan(before)) {
      return {
        confirmed: false,
        reason:
          `the period's refund ${replay.transaction_id} was made before this refund was reviewed ` +
          `(${formatUsdText(formatUsd(byId.cumulative_refunded_before_usd))} refunded before it)`,
      };
    }
    return { confirmed: true, refundedAt: byId.refunded_at, matchedBy: "transaction_id" };
  }
  const byAmount = events.find(
    (e) =>
      !e.refund_transaction_id &&
      sameAmount(e.refunded_amount_usd, attempt.amountUsd) &&
      sameAmount(e.cumulative_refunded_before_usd, before),
  );
  if (byAmount) return { confirmed: true, refundedAt: byAmount.refunded_at, matchedBy: "amount" };
  return {
    confirmed: false,
    reason: `the period lists no refund with transaction id ${replay.transaction_id}${
      events.length ? "" : " (it lists no refund at all)"
    }`,
  };
}

/** Refunded on the period when the attempt was reviewed: the stored figure, else its amount less what was left. */
function refundedBeforeAttempt(report: PeriodReport, attempt: AttemptParameters): Money {
  if (attempt.reviewedRefundedToDateUsd !== null) return money(attempt.reviewedRefundedToDateUsd);
  return Money.max(money(report.period.amount_usd).minus(money(attempt.remainingBeforeUsd)), new Money(0));
}
