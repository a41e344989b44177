import type { Decimal } from "decimal.js";
import { sumMoney } from "@/lib/money";
import type { Millis } from "../time";
import { ZERO } from "./settlement";
import { ATTRIBUTION_REASONS, type AttributionReason, type PeriodState, type ReversalEntry } from "./types";
import { periodRowRefunds, usd } from "./views";

/**
 * The attribution report's arithmetic: which renewals and reversals a window holds, summed per recipient and over
 * the game. The report's JSON lines are in report-lines.ts, the routes' answers in reporting.ts.
 */

/** Spec, Limits: "at most 20,000 settled renewals and 20,000 refunded renewals per report". */
export const MAX_SETTLED_RENEWALS = 20_000;
export const MAX_REVERSAL_ROWS = 20_000;
/** Spec, Limits: "Inline evidence | 500 lines per recipient". */
export const INLINE_LINES = 500;
export const MAX_WINDOW_DAYS = 400;

export type Window = { start: Millis; end: Millis } | null;

export function inWindow(at: Millis, window: Window): boolean {
  return window === null || (at >= window.start && at < window.end);
}

/** True when part of the period's refunds is known only from the period row (the coarse basis). */
export function isCoarse(period: PeriodState): boolean {
  return period.refunds.some((event) => !event.hasReceipt);
}

export type ReversalGroup = { period: PeriodState; entries: ReversalEntry[] };

export type RecipientAcc = {
  playerId: number;
  renewals: PeriodState[];
  gross: Decimal;
  reversed: Decimal;
  subscriptions: Set<string>;
  reversals: Map<number, ReversalGroup>;
  firstPaidAt: Millis | null;
  lastPaidAt: Millis | null;
};

export type Aggregate = { totals: Record<string, unknown>; recipients: RecipientAcc[]; recipientIds: number[] };

export function entryReversedAttributed(entry: ReversalEntry): Decimal {
  if (entry.event) return entry.event.reversedAttributedUsd;
  return sumMoney(periodRowRefunds(entry.period).map((event) => event.reversedAttributedUsd));
}

export function entryPartnerReversed(entry: ReversalEntry): Decimal {
  // Spec: the period_row basis does "not show any partner-revenue clawback".
  return entry.event ? entry.event.partnerRevenueReversedUsd : ZERO;
}

/** True when the period settled in the window and was fully refunded inside it too ("pay nothing"). */
export function netsToZero(period: PeriodState, window: Window): boolean {
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
export function aggregate(settled: PeriodState[], reversals: ReversalEntry[], window: Window): Aggregate {
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
