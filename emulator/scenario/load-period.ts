import type { Decimal } from "decimal.js";
import { money, percentOf, usdToCoins } from "@/lib/money";
import type { Ledger } from "../ledger/ledger";
import { CARD_ONLY_FUNDING_SINCE, ZERO, recordSettlement } from "../ledger/settlement";
import type { Funding, PeriodState, SubscriptionState } from "../ledger/types";
import type { PeriodScenario } from "./schema";

import { amountOf, instant, ScenarioError } from "./load-values";

function defaultFunding(
  sub: SubscriptionState,
  amount: Decimal,
  p: PeriodScenario,
  where: string,
  paidAt: number,
): Funding {
  const coins = usdToCoins(amount);
  const given = p.funding;
  if (given) {
    const balance = given.balance_applied_coins ? money(given.balance_applied_coins) : ZERO;
    const card = given.card_charged_usd ? money(given.card_charged_usd) : ZERO;
    const pcstore = given.pcstore_charged_usd ? money(given.pcstore_charged_usd) : ZERO;
    if (!balance.dividedBy(10).plus(card).plus(pcstore).equals(amount)) {
      throw new ScenarioError(
        `${where}.funding: balance_applied_coins / 10 + card_charged_usd + pcstore_charged_usd must equal the amount`,
      );
    }
    // Spec, Versioning: "since 2026-09-17 card-funded renewal periods carry balance_applied_coins of 0.00".
    if (balance.gt(0) && card.gt(0) && paidAt >= CARD_ONLY_FUNDING_SINCE) {
      throw new ScenarioError(
        `${where}.funding: a card charge paid since 2026-09-17 draws nothing from the wallet ` +
          "(balance_applied_coins and card_charged_usd together only before then)",
      );
    }
    return {
      amountCoins: coins,
      balanceAppliedCoins: balance,
      cardChargedUsd: card,
      rail: sub.fundingRail,
      pcstoreChargedUsd: pcstore,
    };
  }
  if (sub.fundingRail === "pcstore") {
    return {
      amountCoins: coins,
      balanceAppliedCoins: ZERO,
      cardChargedUsd: ZERO,
      rail: "pcstore",
      pcstoreChargedUsd: amount,
    };
  }
  if (sub.walletOnly) {
    return {
      amountCoins: coins,
      balanceAppliedCoins: coins,
      cardChargedUsd: ZERO,
      rail: "card",
      pcstoreChargedUsd: ZERO,
    };
  }
  return {
    amountCoins: coins,
    balanceAppliedCoins: ZERO,
    cardChargedUsd: amount,
    rail: "card",
    pcstoreChargedUsd: ZERO,
  };
}

export function loadPeriod(ledger: Ledger, sub: SubscriptionState, p: PeriodScenario, where: string): void {
  const start = instant(p.period_start, where);
  const end = instant(p.period_end, where);
  if (end <= start) throw new ScenarioError(`${where}: period_end must be after period_start`);
  const amount = p.amount_usd ? amountOf(p.amount_usd) : sub.amountUsd;
  const settled = p.status === "paid" || p.status === "refunded";
  const period: PeriodState = {
    periodId: p.period_id ?? ledger.nextPeriodId,
    sub,
    periodSeq: p.period_seq,
    status: p.status === "refunded" ? "paid" : p.status,
    periodStart: start,
    periodEnd: end,
    paidAt: null,
    amountUsd: amount,
    feePercent: ZERO,
    invoFeeUsd: ZERO,
    partnerRevenueSettledUsd: ZERO,
    attribution: null,
    unavailableReason: null,
    expectedBaseUsd: ZERO,
    funding: null,
    transactionId: null,
    mintOrderId: null,
    paymentReference: null,
    charge: {
      attempts: p.attempts ?? 1,
      paidAttemptNo: null,
      paidAttemptAt: null,
      outcome: p.status === "failed" ? "failed" : p.status === "forgiven" ? "forgiven" : "retrying",
      firstAttemptAt: start,
    },
    passThroughFeesUsd: p.pass_through_fees_usd ? money(p.pass_through_fees_usd) : ZERO,
    chargebackFeesUsd: p.chargeback_fees_usd ? money(p.chargeback_fees_usd) : ZERO,
    disputedAmountHeldUsd: p.disputed_amount_held_usd ? money(p.disputed_amount_held_usd) : ZERO,
    refunds: [],
    refundedTotalUsd: ZERO,
    appliesStagedPrice: false,
  };
  if (ledger.periods.has(period.periodId)) throw new ScenarioError(`${where}: duplicate period_id ${period.periodId}`);
  ledger.addPeriod(period);
  if (!settled) return;
  if (!p.paid_at) throw new ScenarioError(`${where}: a ${p.status} period needs paid_at`);
  const paidAt = instant(p.paid_at, where);
  if (paidAt > ledger.now) throw new ScenarioError(`${where}: paid_at is after the clock`);
  recordSettlement(ledger, period, {
    paidAt,
    funding: defaultFunding(sub, amount, p, where, paidAt),
    attribution: p.attribution,
    percentAtRenewal: p.percent_at_renewal ? money(p.percent_at_renewal) : undefined,
    feePercent: p.fee_percent ? money(p.fee_percent) : undefined,
    mintOrderId: p.mint_order_id,
    paymentReference: p.payment_reference,
    attemptNo: p.attempts ?? 1,
  });
  if (p.recorded_base_usd && period.attribution) {
    // Drift: the recorded base differs from the rule's; the attributed amount is the snapshot taken from it.
    const base = money(p.recorded_base_usd);
    period.attribution.baseUsd = base;
    period.attribution.attributedUsd = percentOf(base, period.attribution.percentAtRenewal);
  }
}
