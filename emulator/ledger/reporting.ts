import { ApiError } from "../errors";
import { formatInstant, formatNullable, lowerBound, type Millis } from "../time";
import { compareSettled, reversalEntriesOf, type Ledger } from "./ledger";
import { ZERO } from "./settlement";
import type { GameState, PeriodState, ReversalEntry, SubscriptionState } from "./types";
import {
  ATTRIBUTION_NOTICE,
  cardFeeChargedToPartner,
  currentRevenueShareView,
  periodLine,
  periodReversed,
  reportSubscriptionView,
  usd,
} from "./views";
import {
  aggregate,
  inWindow,
  INLINE_LINES,
  isCoarse,
  MAX_REVERSAL_ROWS,
  MAX_SETTLED_RENEWALS,
  MAX_WINDOW_DAYS,
} from "./report-aggregate";
import { windowAggregate } from "./report-cache";
import { entryEventView, recipientLine } from "./report-lines";

export type WindowReportQuery = {
  start: Millis;
  end: Millis;
  recipientPlayerId: number | null;
  subscriptionId: string | null;
  limit: number;
  offset: number;
};

function checkLimits(settledCount: number, reversals: ReversalEntry[]): void {
  if (settledCount > MAX_SETTLED_RENEWALS) {
    throw new ApiError(
      400,
      "WINDOW_TOO_LARGE",
      "The window holds more settled renewals than one report may carry; split it.",
      {
        settled_renewals: settledCount,
        max_renewals: MAX_SETTLED_RENEWALS,
      },
    );
  }
  if (reversals.length > MAX_REVERSAL_ROWS) {
    const periods = new Set(reversals.map((entry) => entry.period.periodId)).size;
    if (periods > MAX_REVERSAL_ROWS) {
      throw new ApiError(
        400,
        "WINDOW_TOO_LARGE",
        "The window holds more refunded renewals than one report may carry; split it.",
        {
          reversals: periods,
          max_rows: MAX_REVERSAL_ROWS,
        },
      );
    }
  }
}

/** GET /api/subscriptions/reporting/attribution */
export function windowReport(ledger: Ledger, game: GameState, query: WindowReportQuery): Record<string, unknown> {
  const window = { start: query.start, end: query.end };
  let settled: PeriodState[];
  let reversals: ReversalEntry[];
  const sub = query.subscriptionId ? ledger.subscription(game.gameId, query.subscriptionId) : undefined;
  if (query.subscriptionId) {
    // Spec: "Everything is scoped to the caller's game; ids of other tenants return 404" (404 SUBSCRIPTION_NOT_FOUND).
    if (!sub) throw new ApiError(404, "SUBSCRIPTION_NOT_FOUND", "No such subscription for this game.");
    const periods = sub.periods;
    settled = periods.filter((p) => p.paidAt !== null && inWindow(p.paidAt, window)).sort(compareSettled);
    reversals = reversalEntriesOf(periods).filter((entry) => inWindow(entry.at, window));
  } else {
    const index = ledger.settledIndex(game);
    const from = lowerBound(index, window.start, (p) => p.paidAt ?? 0);
    const to = lowerBound(index, window.end, (p) => p.paidAt ?? 0);
    settled = index.slice(from, to);
    const reversalIndex = ledger.reversalIndex(game);
    reversals = reversalIndex.slice(
      lowerBound(reversalIndex, window.start, (entry) => entry.at),
      lowerBound(reversalIndex, window.end, (entry) => entry.at),
    );
  }
  checkLimits(settled.length, reversals);
  // Every page of a window carries the same totals and order: the window's aggregate is kept for its next pages.
  const { totals, recipients } = sub
    ? aggregate(settled, reversals, window)
    : windowAggregate(ledger, game, window, settled, reversals);
  // Spec: "platform-wide totals are accumulated before this filter".
  const filtered =
    query.recipientPlayerId === null
      ? recipients
      : recipients.filter((acc) => acc.playerId === query.recipientPlayerId);
  const page = filtered.slice(query.offset, query.offset + query.limit);
  return {
    status: "success",
    attribution_notice: ATTRIBUTION_NOTICE,
    report: {
      type: "attribution_by_recipient",
      game_id: game.gameId,
      generated_at: formatInstant(ledger.now),
      window: { start: formatInstant(window.start), end: formatInstant(window.end), end_exclusive: true },
      filters: { recipient_player_id: query.recipientPlayerId, subscription_id: query.subscriptionId },
      derivation: DERIVATION,
      known_limits: KNOWN_LIMITS,
    },
    totals,
    recipients: page.map((acc) => recipientLine(ledger, game.gameId, acc, window)),
    pagination: {
      total_count: filtered.length,
      limit: query.limit,
      offset: query.offset,
      has_more: query.offset + page.length < filtered.length,
    },
  };
}

const DERIVATION = {
  window_key:
    "A renewal belongs to the window holding its paid_at (settlement); each reversal to the window holding its " +
    "refund. Windows are [start, end).",
  legs: "Two revenue legs: invo_fee_usd = round(amount × fee%), partner_revenue_settled_usd = amount − invo_fee_usd.",
  attribution:
    "base_usd = partner_revenue_settled_usd; attributed_amount_usd = round(base_usd × percent_at_renewal / 100), " +
    "recorded at settlement and never recomputed.",
  reversals:
    "A partial refund reverses round(attributed × refunded / amount); the refund completing a period reverses what " +
    "remains, so a fully refunded period nets to zero.",
  rounding: "To the cent, half away from zero, when a figure is recorded.",
};

const KNOWN_LIMITS = {
  max_window_days: MAX_WINDOW_DAYS,
  max_settled_renewals: MAX_SETTLED_RENEWALS,
  max_reversal_rows: MAX_REVERSAL_ROWS,
  inline_lines_per_recipient: INLINE_LINES,
  period_row_reversals:
    "Refunds known only from the period row are reported together, wholly in the window of the latest of them, and " +
    "show no partner-revenue clawback; refunds with receipts on the same period stay exact in their own windows.",
};

export type SubscriptionReportQuery = { statuses: Set<string> | null; limit: number; offset: number };

/** GET /api/subscriptions/reporting/subscriptions/{subscription_id}/attribution */
export function subscriptionReport(
  ledger: Ledger,
  sub: SubscriptionState,
  query: SubscriptionReportQuery,
): Record<string, unknown> {
  const settled = sub.periods.filter((p) => p.paidAt !== null).sort(compareSettled);
  let lifetime: Record<string, unknown> | null = null;
  // Spec: lifetime_totals is "null only past the 20,000-renewal cap".
  if (settled.length <= MAX_SETTLED_RENEWALS) {
    const { totals, recipientIds } = aggregate(settled, reversalEntriesOf(settled), null);
    lifetime = { ...totals, recipient_player_ids: recipientIds };
  }
  // Spec: "Cycles are newest first"; never-paid cycles are included by default with attribution null.
  const cycles = sub.periods
    .filter((p) => query.statuses === null || query.statuses.has(p.status))
    .sort((a, b) => b.periodSeq - a.periodSeq || b.periodId - a.periodId);
  const page = cycles.slice(query.offset, query.offset + query.limit);
  return {
    status: "success",
    attribution_notice: ATTRIBUTION_NOTICE,
    subscription: reportSubscriptionView(sub),
    current_revenue_share: currentRevenueShareView(sub),
    lifetime_totals: lifetime,
    periods: page.map((period) => periodLine(ledger, period)),
    pagination: {
      total_count: cycles.length,
      limit: query.limit,
      offset: query.offset,
      has_more: query.offset + page.length < cycles.length,
    },
  };
}

/** GET /api/subscriptions/reporting/periods/{period_id} */
export function periodDetail(ledger: Ledger, period: PeriodState): Record<string, unknown> {
  const sub = period.sub;
  const settled = period.paidAt !== null;
  const reversed = periodReversed(period);
  const cardFee = cardFeeChargedToPartner(period);
  const partnerNet = period.partnerRevenueSettledUsd.minus(reversed.partner);
  const afterFees = partnerNet
    .minus(period.passThroughFeesUsd)
    .minus(period.chargebackFeesUsd)
    .minus(period.disputedAmountHeldUsd)
    .minus(cardFee);
  const coarse = isCoarse(period);
  const entries = reversalEntriesOf([period]);
  const latest = period.refunds[period.refunds.length - 1];
  return {
    status: "success",
    attribution_notice: ATTRIBUTION_NOTICE,
    subscription: reportSubscriptionView(sub),
    period: periodLine(ledger, period),
    fee_legs: {
      invo_fee_usd: usd(period.invoFeeUsd),
      invo_fee_percent: usd(period.feePercent),
      partner_revenue_usd: usd(partnerNet),
      partner_revenue_settled_usd: usd(period.partnerRevenueSettledUsd),
      partner_revenue_reversed_usd: usd(reversed.partner),
      partner_revenue_percent: usd(settled ? period.feePercent.negated().plus(100) : ZERO),
      partner_leg_reversed:
        settled && reversed.partner.gt(0) && reversed.partner.equals(period.partnerRevenueSettledUsd),
      pass_through_fees_usd: usd(period.passThroughFeesUsd),
      chargeback_fees_usd: usd(period.chargebackFeesUsd),
      disputed_amount_held_usd: usd(period.disputedAmountHeldUsd),
      card_fee_charged_to_partner_usd: usd(cardFee),
      partner_revenue_after_fees_usd: usd(afterFees),
      source: settled ? "settlement_record" : "not_settled",
      note: settled
        ? "Figures are the snapshot recorded at settlement; reversals follow refunds."
        : "This cycle was never collected; no revenue legs exist.",
    },
    refunds: {
      refund_count: entries.length,
      refunded_to_date_usd: usd(period.refundedTotalUsd),
      latest_refund_at: latest ? formatInstant(latest.refundedAt) : null,
      basis: coarse ? "period_row" : "refund_receipts",
      events: entries.map((entry) => ({
        ...entryEventView(entry),
        refund_transaction_id: entry.event?.transactionId ?? null,
      })),
    },
    charge: {
      attempts_for_period: period.charge.attempts,
      paid_attempt_no: period.charge.paidAttemptNo,
      paid_attempt_at: formatNullable(period.charge.paidAttemptAt),
      outcome: period.charge.outcome,
    },
    current_revenue_share: currentRevenueShareView(sub),
  };
}
