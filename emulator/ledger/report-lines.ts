import { sumMoney } from "@/lib/money";
import { formatInstant, formatNullable } from "../time";
import type { Ledger } from "./ledger";
import { ZERO } from "./settlement";
import type { PeriodState, RefundEvent, ReversalEntry } from "./types";
import { periodLine, periodRowRefunds, recipientView, usd } from "./views";
import {
  entryPartnerReversed,
  entryReversedAttributed,
  INLINE_LINES,
  inWindow,
  netsToZero,
  type RecipientAcc,
  type ReversalGroup,
  type Window,
} from "./report-aggregate";

/** The report's lines as the service writes them: refund events, reversal lines and recipient lines. */

function refundEventView(event: RefundEvent): Record<string, unknown> {
  return {
    refunded_at: formatInstant(event.refundedAt),
    refunded_amount_usd: usd(event.amountUsd),
    cumulative_refunded_before_usd: usd(event.cumulativeBeforeUsd),
    cumulative_refunded_after_usd: usd(event.cumulativeAfterUsd),
    reversed_attributed_usd: usd(event.reversedAttributedUsd),
    partner_revenue_reversed_usd: usd(event.partnerRevenueReversedUsd),
    partner_revenue_reversal_basis: event.reversalBasis,
    is_full_refund: event.isFullRefund,
    settled_by_invo: false,
  };
}

/**
 * The single coarse row of a period's period-row portion: the refunds known only from the row, together, at the
 * latest of them, without partner-revenue clawback. Its cumulative figures are the row's after that latest refund.
 */
function coarseEventView(period: PeriodState): Record<string, unknown> {
  const rows = periodRowRefunds(period);
  const latest = rows[rows.length - 1] as RefundEvent;
  const amount = sumMoney(rows.map((event) => event.amountUsd));
  return {
    refunded_at: formatInstant(latest.refundedAt),
    refunded_amount_usd: usd(amount),
    cumulative_refunded_before_usd: usd(latest.cumulativeAfterUsd.minus(amount)),
    cumulative_refunded_after_usd: usd(latest.cumulativeAfterUsd),
    reversed_attributed_usd: usd(sumMoney(rows.map((event) => event.reversedAttributedUsd))),
    partner_revenue_reversed_usd: "0.00",
    partner_revenue_reversal_basis: "none",
    is_full_refund: latest.isFullRefund,
    settled_by_invo: false,
  };
}

/** The refund events of reversal entries, in time order: receipt events exactly, the period-row portion as one row. */
export function entryEventView(entry: ReversalEntry): Record<string, unknown> {
  return entry.event ? refundEventView(entry.event) : coarseEventView(entry.period);
}

function reversalLine(group: ReversalGroup, window: Window): Record<string, unknown> {
  const period = group.period;
  const coarse = group.entries.some((entry) => entry.event === null);
  const latest = period.refunds[period.refunds.length - 1];
  const reversedAttributed = sumMoney(group.entries.map(entryReversedAttributed));
  const partnerReversed = sumMoney(group.entries.map(entryPartnerReversed));
  const zero = netsToZero(period, window);
  const notes: string[] = [];
  if (coarse) {
    notes.push(
      "Partly or wholly known only from the period row: that part is reported wholly in the window of its latest " +
        "refund, without partner-revenue clawback; refunds with receipts stay exact in their own windows.",
    );
  }
  if (zero) notes.push("Settled and fully refunded inside this window: pay nothing.");
  return {
    period_id: period.periodId,
    subscription_id: period.sub.subscriptionId,
    period_seq: period.periodSeq,
    status: period.status,
    paid_at: formatNullable(period.paidAt),
    settled_in_this_window: period.paidAt !== null && inWindow(period.paidAt, window),
    amount_usd: usd(period.amountUsd),
    originally_attributed_usd: usd(period.attribution?.attributedUsd ?? ZERO),
    refunded_to_date_usd: usd(period.refundedTotalUsd),
    latest_refund_at: latest ? formatInstant(latest.refundedAt) : null,
    reversed_attributed_usd: usd(reversedAttributed),
    partner_revenue_reversed_usd: usd(partnerReversed),
    refund_events: group.entries.map(entryEventView),
    reversal_basis: coarse ? "period_row" : "refund_receipts",
    nets_to_zero_in_window: zero,
    note: notes.length > 0 ? notes.join(" ") : null,
    settled_by_invo: false,
  };
}

export function recipientLine(
  ledger: Ledger,
  gameId: string,
  acc: RecipientAcc,
  window: Window,
): Record<string, unknown> {
  const groups = [...acc.reversals.values()];
  return {
    recipient: recipientView(ledger, gameId, acc.playerId),
    renewal_count: acc.renewals.length,
    subscription_count: acc.subscriptions.size,
    gross_attributed_usd: usd(acc.gross),
    reversed_attributed_usd: usd(acc.reversed),
    net_attributed_usd: usd(acc.gross.minus(acc.reversed)),
    first_paid_at: formatNullable(acc.firstPaidAt),
    last_paid_at: formatNullable(acc.lastPaidAt),
    settled_by_invo: false,
    periods: acc.renewals.slice(0, INLINE_LINES).map((period) => periodLine(ledger, period)),
    periods_truncated: acc.renewals.length > INLINE_LINES,
    reversals: groups.slice(0, INLINE_LINES).map((group) => reversalLine(group, window)),
    reversal_count: groups.length,
    reversals_truncated: groups.length > INLINE_LINES,
  };
}
