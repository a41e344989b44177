import type { Decimal } from "decimal.js";
import { formatUsd } from "@/lib/money";
import { formatInstant, formatNullable, type Millis } from "../time";
import type { Ledger } from "./ledger";
import { CARD_FEE_REPORTED_SINCE, ZERO, cardExpired } from "./settlement";
import type { CardState, PeriodState, PlayerState, RefundEvent, SubscriptionState } from "./types";

/** JSON shapes of the API, built from ledger state. Amounts leave as two-decimal strings. */

export const usd = (value: Decimal): string => formatUsd(value);

/** Spec: "Six fields, all null until supplied; field names: not shown." The names are the emulator's choice. */
export const CONSENT_FIELDS = [
  "terms_version",
  "terms_accepted_at",
  "price_disclosed_usd",
  "renewal_terms_accepted_at",
  "ip_address",
  "user_agent",
] as const;

export const LIVE_STATUSES = [
  "active",
  "past_due",
  "awaiting_authentication",
  "pending_pcstore_authorization",
] as const;
export const TERMINAL_STATUSES = ["canceled", "expired"] as const;

export function isTerminal(sub: SubscriptionState): boolean {
  return sub.status === "canceled" || sub.status === "expired";
}

/** Spec: paid_through is the entitlement boundary; a fully refunded period "no longer counts toward paid_through". */
export function paidThrough(sub: SubscriptionState): Millis | null {
  let latest: Millis | null = null;
  for (const period of sub.periods) {
    if (period.status !== "paid") continue;
    if (latest === null || period.periodEnd > latest) latest = period.periodEnd;
  }
  return latest;
}

export function subscriptionView(ledger: Ledger, sub: SubscriptionState): Record<string, unknown> {
  return {
    subscription_id: sub.subscriptionId,
    game_id: sub.gameId,
    player_id: sub.playerId,
    client_request_id: sub.clientRequestId,
    status: sub.status,
    amount_usd: usd(sub.amountUsd),
    pending_amount_usd: sub.pendingAmountUsd ? usd(sub.pendingAmountUsd) : null,
    interval: sub.interval,
    interval_count: sub.intervalCount,
    item_id: sub.itemId,
    item_name: sub.itemName,
    current_period_start: formatInstant(sub.currentPeriodStart),
    current_period_end: formatInstant(sub.currentPeriodEnd),
    // Spec: period_seq is "1-based; advances on each successful charge": a subscription never charged is in its
    // first period (1), which its first successful charge bills.
    period_seq: Math.max(1, sub.periodSeq),
    next_charge_at: formatNullable(sub.nextChargeAt),
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    trial_end: formatNullable(sub.trialEnd),
    canceled_at: formatNullable(sub.canceledAt),
    ended_at: formatNullable(sub.endedAt),
    wallet_only: sub.walletOnly,
    has_payment_method: sub.cardId !== null && !sub.walletOnly && ledger.cards.get(sub.cardId)?.removed !== true,
    funding_rail: sub.fundingRail,
    pcstore_agreement_status: sub.fundingRail === "pcstore" ? sub.pcstoreAgreementStatus : null,
    metadata: sub.metadata,
    consent: Object.fromEntries(CONSENT_FIELDS.map((field) => [field, null])),
    created_at: formatInstant(sub.createdAt),
    updated_at: formatInstant(sub.updatedAt),
    revenue_share: sub.revenueShare
      ? {
          recipient_player_id: sub.revenueShare.recipientPlayerId,
          percent: usd(sub.revenueShare.percent),
          settled_by_invo: false,
        }
      : null,
    paid_through: formatNullable(paidThrough(sub)),
  };
}

export function playerView(player: PlayerState): Record<string, unknown> {
  return {
    player_id: player.playerId,
    player_name: player.name,
    player_email: player.email,
    identity_id: player.identityId,
    date_joined: formatInstant(player.dateJoined),
  };
}

export function cardView(card: CardState): Record<string, unknown> {
  return {
    id: card.cardId,
    last_four: card.lastFour,
    brand: card.brand,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    created_at: formatInstant(card.createdAt),
  };
}

export function isCardExpired(card: CardState, at: Millis): boolean {
  return cardExpired(card.expMonth, card.expYear, at);
}

/** The recipient block of reports: identity fields are null when the player record cannot be found. */
export function recipientView(ledger: Ledger, gameId: string, playerId: number): Record<string, unknown> {
  const player = ledger.player(gameId, playerId);
  return {
    player_id: playerId,
    resolved: player !== undefined,
    player_email: player?.email ?? null,
    player_name: player?.name ?? null,
    identity_id: player?.identityId ?? null,
  };
}

export const ATTRIBUTION_NOTICE = {
  settled_by_invo: false,
  invo_has_paid_no_recipient: true,
  document_type: "attribution_report",
  not_a_remittance_advice: true,
  payer: "partner",
  statement:
    "This report attributes subscription revenue to recipients nominated by the partner. The service settles to the " +
    "partner only and has paid no recipient; any payment to a recipient is made by the partner.",
} as const;

/** Refunds of a period known only from its row (no receipt), in time order: the period-row portion. */
export function periodRowRefunds(period: PeriodState): RefundEvent[] {
  return period.refunds.filter((event) => !event.hasReceipt);
}

export function periodReversed(period: PeriodState): { attributed: Decimal; partner: Decimal } {
  let attributed = ZERO;
  let partner = ZERO;
  for (const event of period.refunds) {
    attributed = attributed.plus(event.reversedAttributedUsd);
    // Spec: the period-row basis does "not show any partner-revenue clawback"; receipt events show theirs.
    if (event.hasReceipt) partner = partner.plus(event.partnerRevenueReversedUsd);
  }
  return { attributed, partner };
}

/** The card fee charged to the partner: receipt refunds only, as the period-row portion shows no revenue reversal. */
export function cardFeeChargedToPartner(period: PeriodState): Decimal {
  let total = ZERO;
  for (const event of period.refunds) {
    // Spec, Versioning: card fees on refunds are reported since 2026-09-28.
    if (event.hasReceipt && event.refundedAt >= CARD_FEE_REPORTED_SINCE) {
      total = total.plus(event.amountUsd.minus(event.partnerRevenueReversedUsd));
    }
  }
  return total;
}

export function periodLine(ledger: Ledger, period: PeriodState): Record<string, unknown> {
  const sub = period.sub;
  const settled = period.paidAt !== null;
  const reversed = periodReversed(period);
  const latestRefund = period.refunds[period.refunds.length - 1];
  const attribution = period.attribution;
  return {
    period_id: period.periodId,
    subscription_id: sub.subscriptionId,
    period_seq: period.periodSeq,
    item_id: sub.itemId,
    item_name: sub.itemName,
    status: period.status,
    period_start: formatInstant(period.periodStart),
    period_end: formatInstant(period.periodEnd),
    paid_at: formatNullable(period.paidAt),
    amount_usd: usd(period.amountUsd),
    invo_fee_usd: settled ? usd(period.invoFeeUsd) : null,
    partner_revenue_usd: settled ? usd(period.partnerRevenueSettledUsd.minus(reversed.partner)) : null,
    partner_revenue_settled_usd: settled ? usd(period.partnerRevenueSettledUsd) : null,
    partner_revenue_reversed_usd: settled ? usd(reversed.partner) : null,
    partner_leg_reversed: settled && reversed.partner.gt(0) && reversed.partner.equals(period.partnerRevenueSettledUsd),
    funding: period.funding
      ? {
          amount_coins: usd(period.funding.amountCoins),
          balance_applied_coins: usd(period.funding.balanceAppliedCoins),
          card_charged_usd: usd(period.funding.cardChargedUsd),
          rail: period.funding.rail,
          pcstore_charged_usd: usd(period.funding.pcstoreChargedUsd),
        }
      : null,
    refund: {
      refunded_amount_usd: usd(period.refundedTotalUsd),
      refunded_at: latestRefund ? formatInstant(latestRefund.refundedAt) : null,
    },
    transaction_id: period.transactionId,
    mint_order_id: period.mintOrderId,
    attribution: attribution
      ? {
          recipient_player_id: attribution.recipientPlayerId,
          percent_at_renewal: usd(attribution.percentAtRenewal),
          base_usd: usd(attribution.baseUsd),
          attributed_amount_usd: usd(attribution.attributedUsd),
          settled_by_invo: false,
          recipient: recipientView(ledger, sub.gameId, attribution.recipientPlayerId),
        }
      : null,
    attribution_unavailable_reason: period.unavailableReason,
    settled_by_invo: false,
    reconciliation: {
      checked: attribution !== null,
      expected_base_usd: settled ? usd(period.expectedBaseUsd) : null,
      recorded_base_usd: attribution ? usd(attribution.baseUsd) : null,
      base_matches_settled_fee: attribution ? attribution.baseUsd.equals(period.expectedBaseUsd) : null,
    },
  };
}

export function reportSubscriptionView(sub: SubscriptionState): Record<string, unknown> {
  return {
    subscription_id: sub.subscriptionId,
    status: sub.status,
    item_id: sub.itemId,
    item_name: sub.itemName,
    current_amount_usd: usd(sub.amountUsd),
    interval: sub.interval,
    interval_count: sub.intervalCount,
    created_at: formatInstant(sub.createdAt),
  };
}

export function currentRevenueShareView(sub: SubscriptionState): Record<string, unknown> | null {
  if (!sub.revenueShare) return null;
  return {
    recipient_player_id: sub.revenueShare.recipientPlayerId,
    percent: usd(sub.revenueShare.percent),
    applies_to: "future_renewals_only",
    is_payout_basis: false,
    settled_by_invo: false,
    note:
      "The current percent applies to future renewals only; reported figures use the percent recorded at each " +
      "renewal.",
    updated_at: formatInstant(sub.revenueShare.updatedAt),
  };
}
