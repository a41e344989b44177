import type { Decimal } from "decimal.js";
import { Money, percentOf, usdToCoins } from "@/lib/money";
import type { Millis } from "../time";
import type { Ledger } from "./ledger";
import type { AttributionReason, Funding, PeriodState, SubscriptionState } from "./types";

/** Spec, Versioning: "since 2026-09-17 card-funded renewal periods carry balance_applied_coins of 0.00". */
export const CARD_ONLY_FUNDING_SINCE = Date.UTC(2026, 8, 17);
/** Spec, Versioning: "since 2026-09-28 card fees on refunds are reported as card_fee_charged_to_partner_usd". */
export const CARD_FEE_REPORTED_SINCE = Date.UTC(2026, 8, 28);

export const ZERO: Decimal = new Money(0);

export type AttributionMode = "recorded" | Exclude<AttributionReason, "no_revenue_share_configured">;

export type SettlementInput = {
  paidAt: Millis;
  funding: Funding;
  attribution: AttributionMode;
  /** The rate in force at the renewal; defaults to the subscription's current percent. */
  percentAtRenewal?: Decimal;
  /** Fee percent in force at the charge; defaults to the game's. */
  feePercent?: Decimal;
  transactionId?: string;
  mintOrderId?: string | null;
  paymentReference?: string | null;
  attemptNo?: number;
};

/**
 * Records the legs of a settled period. The only place fee, partner revenue and attribution are computed: the
 * scenario loader and live renewals both call it, so recorded and live figures follow the same rules.
 *
 * Rules (shared/spec/README.md, decisions 1-3): invo_fee = round(amount × fee%), partner revenue = amount − fee (the
 * two legs add up to the amount exactly), base_usd = partner revenue, attributed = round(base × percent / 100),
 * rounded half away from zero when recorded and never recomputed.
 */
export function recordSettlement(ledger: Ledger, period: PeriodState, input: SettlementInput): void {
  const sub = period.sub;
  const game = ledger.games.get(sub.gameId);
  if (!game) throw new Error(`unknown game ${sub.gameId}`);
  const feePercent = input.feePercent ?? game.feePercent;
  const { fee: invoFee, partner } = legsOf(period.amountUsd, feePercent);
  period.status = "paid";
  period.paidAt = input.paidAt;
  period.feePercent = feePercent;
  period.invoFeeUsd = invoFee;
  period.partnerRevenueSettledUsd = partner;
  period.expectedBaseUsd = legsOf(period.amountUsd, game.feePercent).partner;
  period.funding = input.funding;
  period.transactionId = input.transactionId ?? ledger.newId("txn_");
  const usesCard = input.funding.cardChargedUsd.gt(0);
  period.mintOrderId = input.mintOrderId !== undefined ? input.mintOrderId : usesCard ? ledger.newId("ord_") : null;
  period.paymentReference =
    input.paymentReference !== undefined ? input.paymentReference : usesCard ? ledger.newId("pi_") : null;
  const attempt = input.attemptNo ?? Math.max(1, period.charge.attempts);
  period.charge = {
    attempts: Math.max(attempt, period.charge.attempts),
    paidAttemptNo: attempt,
    paidAttemptAt: input.paidAt,
    outcome: "succeeded",
    firstAttemptAt: period.charge.firstAttemptAt ?? input.paidAt,
  };
  period.attribution = null;
  period.unavailableReason = null;
  if (!sub.revenueShare) {
    period.unavailableReason = "no_revenue_share_configured";
  } else if (input.attribution !== "recorded") {
    period.unavailableReason = input.attribution;
  } else {
    const percent = input.percentAtRenewal ?? sub.revenueShare.percent;
    period.attribution = {
      recipientPlayerId: sub.revenueShare.recipientPlayerId,
      percentAtRenewal: percent,
      baseUsd: partner,
      attributedUsd: attributedOf(partner, percent),
    };
  }
  ledger.indexSettled(period);
}

// Decimals are immutable, so figures of repeated (amount, percent) pairs are computed once and shared: the demo
// data and large scenarios hold tens of thousands of periods at a handful of prices.
const MEMO_LIMIT = 50_000;
const legsMemo = new Map<string, { fee: Decimal; partner: Decimal }>();
const attributedMemo = new Map<string, Decimal>();

function legsOf(amount: Decimal, feePercent: Decimal): { fee: Decimal; partner: Decimal } {
  const key = `${amount.toString()}|${feePercent.toString()}`;
  let legs = legsMemo.get(key);
  if (!legs) {
    const fee = percentOf(amount, feePercent);
    legs = { fee, partner: amount.minus(fee) };
    if (legsMemo.size >= MEMO_LIMIT) legsMemo.clear();
    legsMemo.set(key, legs);
  }
  return legs;
}

function attributedOf(base: Decimal, percent: Decimal): Decimal {
  const key = `${base.toString()}|${percent.toString()}`;
  let value = attributedMemo.get(key);
  if (!value) {
    value = percentOf(base, percent);
    if (attributedMemo.size >= MEMO_LIMIT) attributedMemo.clear();
    attributedMemo.set(key, value);
  }
  return value;
}

/**
 * Funding of a charge of `amount` on a subscription's rail. Returns null when nothing can pay (a decline).
 *
 * Card subscriptions. Spec: "saved cards fund subscriptions when the member's balance runs short": a wallet that
 * covers the price pays it whole, on any date (no card charge, no mint order, funding shape wallet on a refund). When
 * it runs short the card pays. Spec, Versioning: "since 2026-09-17 card-funded renewal periods carry
 * balance_applied_coins of 0.00", so from that date the card pays the whole price and the wallet is left alone;
 * before it, the wallet paid what it held and the card the rest.
 */
export function chooseFunding(ledger: Ledger, sub: SubscriptionState, amount: Decimal, at: Millis): Funding | null {
  const player = ledger.player(sub.gameId, sub.playerId);
  const balance = player ? player.balanceCoins : ZERO;
  const coins = usdToCoins(amount);
  const wallet: Funding = {
    amountCoins: coins,
    balanceAppliedCoins: coins,
    cardChargedUsd: ZERO,
    rail: sub.fundingRail,
    pcstoreChargedUsd: ZERO,
  };
  if (balance.gte(coins)) return wallet;
  if (sub.fundingRail === "pcstore") {
    return {
      amountCoins: coins,
      balanceAppliedCoins: ZERO,
      cardChargedUsd: ZERO,
      rail: "pcstore",
      pcstoreChargedUsd: amount,
    };
  }
  const card = sub.cardId !== null && !sub.walletOnly ? ledger.cards.get(sub.cardId) : undefined;
  const cardUsable = card !== undefined && !card.removed && !cardExpired(card.expMonth, card.expYear, at);
  if (!cardUsable) return null;
  if (at >= CARD_ONLY_FUNDING_SINCE || balance.lte(0)) {
    return {
      amountCoins: coins,
      balanceAppliedCoins: ZERO,
      cardChargedUsd: amount,
      rail: "card",
      pcstoreChargedUsd: ZERO,
    };
  }
  // Before 2026-09-17 the balance covered what it could and the saved card paid the shortfall.
  const cardUsd = amount.minus(balance.dividedBy(10)).toDecimalPlaces(2, 0);
  return {
    amountCoins: coins,
    balanceAppliedCoins: coins.minus(cardUsd.times(10)),
    cardChargedUsd: cardUsd,
    rail: "card",
    pcstoreChargedUsd: ZERO,
  };
}

/** A card is expired once the last day of its expiry month has passed. */
export function cardExpired(expMonth: number, expYear: number, at: Millis): boolean {
  return at >= Date.UTC(expYear, expMonth, 1);
}
