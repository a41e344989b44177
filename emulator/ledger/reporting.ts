import type { Decimal } from "decimal.js";
import { sumMoney } from "@/lib/money";
import { ApiError } from "../errors";
import { formatInstant, formatNullable, lowerBound, type Millis } from "../time";
import { compareSettled, reversalEntriesOf, type Ledger } from "./ledger";
import { ZERO } from "./settlement";
import {
  ATTRIBUTION_REASONS,
  type AttributionReason,
  type GameState,
  type PeriodState,
  type RefundEvent,
  type ReversalEntry,
  type SubscriptionState,
} from "./types";
import {
  ATTRIBUTION_NOTICE,
  cardFeeChargedToPartner,
  currentRevenueShareView,
  periodLine,
  periodReversed,
  periodRowRefunds,
  recipientView,
  reportSubscriptionView,
  usd,
} from "./views";

/** Spec, Limits: "at most 20,000 settled renewals and 20,000 refunded renewals per report". */
export const MAX_SETTLED_RENEWALS = 20_000;
export const MAX_REVERSAL_ROWS = 20_000;
/** Spec, Limits: "Inline evidence | 500 lines per recipient". */
export const INLINE_LINES = 500;
export const MAX_WINDOW_DAYS = 400;

type Window = { start: Millis; end: Millis } | null;

function inWindow(at: Millis, window: Window): boolean {
  return window === null || (at >= window.start && at < window.end);
}

/** True when part of the period's refunds is known only from the period row (the coarse basis). */
export function isCoarse(period: PeriodState): boolean {
  return period.refunds.some((event) => !event.hasReceipt);
}

type ReversalGroup = { period: PeriodState; entries: ReversalEntry[] };

type RecipientAcc = {
  playerId: number;
  renewals: PeriodState[];
  gross: Decimal;
  reversed: Decimal;
  subscriptions: Set<string>;
  reversals: Map<number, ReversalGroup>;
  firstPaidAt: Millis | null;
  lastPaidAt: Millis | null;
};

type Aggregate = { totals: Record<string, unknown>; recipients: RecipientAcc[]; recipientIds: number[] };

function entryReversedAttributed(entry: ReversalEntry): Decimal {
  if (entry.event) return entry.event.reversedAttributedUsd;
  return sumMoney(periodRowRefunds(entry.period).map((event) => event.reversedAttributedUsd));
}

function entryPartnerReversed(entry: ReversalEntry): Decimal {
  // Spec: the period_row basis does "not show any partner-revenue clawback".
  return entry.event ? entry.event.partnerRevenueReversedUsd : ZERO;
}

/** True when the period settled in the window and was fully refunded inside it too ("pay nothing"). */
function netsToZero(period: PeriodState, window: Window): boolean {
  if (period.paidAt === null || !inWindow(period.paidAt, window)) return false;
  if (!period.refundedTotalUsd.equals(period.amountUsd)) return false;
  const completing = period.refunds[period.refunds.length - 1];
  return completing !== undefined && inWindow(completing.refundedAt, window);
}

/**
 * Totals and per-recipient figures of a set of settled periods and reversal entries.
 * Spec: "A renewal that settled in a window stays in that window's gross whatever happens later; each reversal is
 * reported in the window of the refund itself." The caller passes the periods settled in the window and the reversal
 * entries dated in it, so every money figure here is additive over adjacent windows.
 */
function aggregate(settled: PeriodState[], reversals: ReversalEntry[], window: Window): Aggregate {
  let gross = ZERO;
  let fee = ZERO;
  let partnerSettled = ZERO;
  let partnerReversed = ZERO;
  let grossAttributed = ZERO;
  let reversedAttributed = ZERO;
  let withAttribution = 0;
  let fullyReversed = 0;
  let refundEvents = 0;
  let withoutReceipts = 0;
  const reasons: Record<AttributionReason, number> = {
    no_revenue_share_configured: 0,
    spend_order_not_found: 0,
    attribution_not_recorded: 0,
    attribution_malformed: 0,
  };
  const byRecipient = new Map<number, RecipientAcc>();
  const recipientOf = (playerId: number): RecipientAcc => {
    let acc = byRecipient.get(playerId);
    if (!acc) {
      acc = {
        playerId,
        renewals: [],
        gross: ZERO,
        reversed: ZERO,
        subscriptions: new Set(),
        reversals: new Map(),
        firstPaidAt: null,
        lastPaidAt: null,
      };
      byRecipient.set(playerId, acc);
    }
    return acc;
  };

  for (const period of settled) {
    gross = gross.plus(period.amountUsd);
    fee = fee.plus(period.invoFeeUsd);
    partnerSettled = partnerSettled.plus(period.partnerRevenueSettledUsd);
    if (netsToZero(period, window)) fullyReversed++;
    const attribution = period.attribution;
    if (!attribution) {
      reasons[period.unavailableReason ?? "attribution_not_recorded"]++;
      continue;
    }
    withAttribution++;
    grossAttributed = grossAttributed.plus(attribution.attributedUsd);
    const acc = recipientOf(attribution.recipientPlayerId);
    acc.renewals.push(period);
    acc.gross = acc.gross.plus(attribution.attributedUsd);
    acc.subscriptions.add(period.sub.subscriptionId);
    const paidAt = period.paidAt as Millis;
    if (acc.firstPaidAt === null || paidAt < acc.firstPaidAt) acc.firstPaidAt = paidAt;
    if (acc.lastPaidAt === null || paidAt > acc.lastPaidAt) acc.lastPaidAt = paidAt;
  }

  for (const entry of reversals) {
    const attributed = entryReversedAttributed(entry);
    reversedAttributed = reversedAttributed.plus(attributed);
    partnerReversed = partnerReversed.plus(entryPartnerReversed(entry));
    refundEvents++;
    if (!entry.event) withoutReceipts++;
    const attribution = entry.period.attribution;
    if (!attribution) continue;
    const acc = recipientOf(attribution.recipientPlayerId);
    acc.reversed = acc.reversed.plus(attributed);
    acc.subscriptions.add(entry.period.sub.subscriptionId);
    const group = acc.reversals.get(entry.period.periodId);
    if (group) group.entries.push(entry);
    else acc.reversals.set(entry.period.periodId, { period: entry.period, entries: [entry] });
  }

  const recipients = [...byRecipient.values()];
  // Spec: "Recipients sort by net attributed descending, recipient id ascending as tiebreaker."
  recipients.sort((a, b) => {
    const diff = b.gross.minus(b.reversed).comparedTo(a.gross.minus(a.reversed));
    return diff !== 0 ? diff : a.playerId - b.playerId;
  });
  const totals = {
    renewals_settled: settled.length,
    settled_gross_usd: usd(gross),
    invo_fee_usd: usd(fee),
    partner_revenue_settled_usd: usd(partnerSettled),
    partner_revenue_reversed_usd: usd(partnerReversed),
    partner_revenue_usd: usd(partnerSettled.minus(partnerReversed)),
    renewals_with_attribution: withAttribution,
    renewals_without_attribution: settled.length - withAttribution,
    unattributed_reasons: Object.fromEntries(ATTRIBUTION_REASONS.map((reason) => [reason, reasons[reason]])),
    gross_attributed_usd: usd(grossAttributed),
    reversed_attributed_usd: usd(reversedAttributed),
    net_attributed_usd: usd(grossAttributed.minus(reversedAttributed)),
    renewals_settled_then_fully_reversed: fullyReversed,
    refund_events_in_window: refundEvents,
    reversals_without_receipts: withoutReceipts,
    recipient_count: recipients.length,
    settled_by_invo: false,
  };
  return { totals, recipients, recipientIds: [...byRecipient.keys()].sort((a, b) => a - b) };
}

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
function entryEventView(entry: ReversalEntry): Record<string, unknown> {
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
      "Partly or wholly known only from the period row: that part is reported wholly in the window of its latest refund, without partner-revenue clawback; refunds with receipts stay exact in their own windows.",
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

function recipientLine(ledger: Ledger, gameId: string, acc: RecipientAcc, window: Window): Record<string, unknown> {
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
  const { totals, recipients } = aggregate(settled, reversals, window);
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
    "A renewal belongs to the window holding its paid_at (settlement); each reversal to the window holding its refund. Windows are [start, end).",
  legs: "Two revenue legs: invo_fee_usd = round(amount × fee%), partner_revenue_settled_usd = amount − invo_fee_usd.",
  attribution:
    "base_usd = partner_revenue_settled_usd; attributed_amount_usd = round(base_usd × percent_at_renewal / 100), recorded at settlement and never recomputed.",
  reversals:
    "A partial refund reverses round(attributed × refunded / amount); the refund completing a period reverses what remains, so a fully refunded period nets to zero.",
  rounding: "To the cent, half away from zero, when a figure is recorded.",
};

const KNOWN_LIMITS = {
  max_window_days: MAX_WINDOW_DAYS,
  max_settled_renewals: MAX_SETTLED_RENEWALS,
  max_reversal_rows: MAX_REVERSAL_ROWS,
  inline_lines_per_recipient: INLINE_LINES,
  period_row_reversals:
    "Refunds known only from the period row are reported together, wholly in the window of the latest of them, and show no partner-revenue clawback; refunds with receipts on the same period stay exact in their own windows.",
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
