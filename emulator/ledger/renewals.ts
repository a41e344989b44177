import { Money } from "@/lib/money";
import { addInterval, DAY, formatInstant, formatNullable, type Millis } from "../time";
import type { Ledger } from "./ledger";
import { ledgerChanged } from "./revision";
import { chooseFunding, recordSettlement } from "./settlement";
import type { PeriodState, SubscriptionState } from "./types";
import { isTerminal, paidThrough, periodLine, usd } from "./views";

/** The emulator's dunning schedule (not shown in the spec): retries 1, 3 and 5 days after the first attempt. */
export const DUNNING_RETRY_OFFSETS: readonly Millis[] = [1 * DAY, 3 * DAY, 5 * DAY];
/**
 * Spec: "an increase to more than double the price the member last agreed to, or above 500.00 USD, is ... never
 * applied".
 */
export const PRICE_CEILING_USD = new Money("500.00");

export type AdvanceResult = {
  from: Millis;
  to: Millis;
  renewals: number;
  declines: number;
  retired: number;
  expired: number;
};

/** When the service next touches a subscription: its next charge, or its retirement when canceling at period end. */
export function nextTouch(sub: SubscriptionState): Millis | null {
  if (sub.status === "canceled" || sub.status === "expired") return null;
  if (sub.cancelAtPeriodEnd) return paidThrough(sub) ?? sub.currentPeriodEnd;
  if (sub.status === "pending_pcstore_authorization") return null;
  return sub.nextChargeAt;
}

export function reschedule(ledger: Ledger, sub: SubscriptionState): void {
  ledger.schedule.set(sub, nextTouch(sub));
}

/**
 * Spec: a subscription canceling at period end is "Retired at paid_through with no further charge; no second event at
 * retirement."
 */
function retire(ledger: Ledger, sub: SubscriptionState, at: Millis): void {
  sub.status = "canceled";
  sub.endedAt = at;
  sub.nextChargeAt = null;
  sub.updatedAt = at;
  if (sub.fundingRail === "pcstore") sub.pcstoreAgreementStatus = "canceled";
  reschedule(ledger, sub);
}

/**
 * Called when paid_through may have moved back (a full refund: the period "no longer counts toward paid_through").
 * A subscription set to cancel at period end then retires at the new paid_through, or at once when that has already
 * passed or nothing paid remains; any other subscription keeps its next charge.
 */
export function paidThroughChanged(ledger: Ledger, sub: SubscriptionState): void {
  if (sub.cancelAtPeriodEnd && !isTerminal(sub)) {
    const through = paidThrough(sub);
    if (through === null || through <= ledger.now) {
      retire(ledger, sub, ledger.now);
      return;
    }
  }
  reschedule(ledger, sub);
}

/**
 * Moves the emulator clock to `target`, running every renewal, retry and retirement that falls due on the way, in
 * time order. A touch that was already overdue runs at the clock's current time. Moving backwards is refused by the
 * admin route; here it only sets the clock.
 */
export function advanceClock(ledger: Ledger, target: Millis): AdvanceResult {
  const result: AdvanceResult = { from: ledger.now, to: target, renewals: 0, declines: 0, retired: 0, expired: 0 };
  for (;;) {
    const due = ledger.schedule.popDue(target);
    if (!due) break;
    ledgerChanged(ledger);
    ledger.now = Math.max(ledger.now, due.at);
    touch(ledger, due.sub, result);
  }
  ledger.now = Math.max(ledger.now, target);
  return result;
}

function touch(ledger: Ledger, sub: SubscriptionState, result: AdvanceResult): void {
  const at = ledger.now;
  if (sub.cancelAtPeriodEnd && !isTerminal(sub)) {
    retire(ledger, sub, at);
    result.retired++;
    return;
  }
  charge(ledger, sub, at, result);
  reschedule(ledger, sub);
}

/** The open (unpaid) period being retried in dunning, if any. */
function openPeriod(sub: SubscriptionState): PeriodState | undefined {
  const last = sub.periods[sub.periods.length - 1];
  return last && last.status === "pending" ? last : undefined;
}

/**
 * Spec, amount rule: a staged price "applies at the next successful renewal"; "an increase to more than double the
 * price the member last agreed to, or above 500.00 USD, is staged but never applied" (Limits: "increase above double
 * the last agreed price or above 500.00 USD is never applied"). An increase, over the price last agreed: a price
 * lowered to one still above 500.00 applies.
 */
export function stagedPriceApplies(sub: SubscriptionState): boolean {
  const pending = sub.pendingAmountUsd;
  if (!pending) return false;
  const agreed = sub.lastAgreedAmountUsd;
  return pending.lte(agreed) || (pending.lte(agreed.times(2)) && pending.lte(PRICE_CEILING_USD));
}

function charge(ledger: Ledger, sub: SubscriptionState, at: Millis, result: AdvanceResult): void {
  let period = openPeriod(sub);
  if (!period) {
    // A new billing window starts where the current one ends; its price is fixed when the window is first billed.
    const applies = stagedPriceApplies(sub);
    // A subscription never billed whose first charge is due at its window's start bills that window itself.
    const firstWindow = sub.periods.length === 0 && (sub.nextChargeAt ?? at) <= sub.currentPeriodStart;
    const start = firstWindow ? sub.currentPeriodStart : sub.currentPeriodEnd;
    period = {
      periodId: ledger.nextPeriodId,
      sub,
      periodSeq: sub.periodSeq + 1,
      status: "pending",
      periodStart: start,
      periodEnd: addInterval(start, sub.interval, sub.intervalCount, sub.anchorDay),
      paidAt: null,
      amountUsd: applies && sub.pendingAmountUsd ? sub.pendingAmountUsd : sub.amountUsd,
      feePercent: new Money(0),
      invoFeeUsd: new Money(0),
      partnerRevenueSettledUsd: new Money(0),
      attribution: null,
      unavailableReason: null,
      expectedBaseUsd: new Money(0),
      funding: null,
      transactionId: null,
      mintOrderId: null,
      paymentReference: null,
      charge: { attempts: 0, paidAttemptNo: null, paidAttemptAt: null, outcome: "pending", firstAttemptAt: null },
      passThroughFeesUsd: new Money(0),
      chargebackFeesUsd: new Money(0),
      disputedAmountHeldUsd: new Money(0),
      refunds: [],
      refundedTotalUsd: new Money(0),
      appliesStagedPrice: applies,
    };
    ledger.addPeriod(period);
  }
  period.charge.attempts++;
  period.charge.firstAttemptAt ??= at;
  const forced = sub.forcedOutcomes.shift();
  const funding = forced === "decline" ? null : chooseFunding(ledger, sub, period.amountUsd, at);
  if (!funding) {
    decline(sub, period, at, result);
    return;
  }
  recordSettlement(ledger, period, { paidAt: at, funding, attribution: "recorded", attemptNo: period.charge.attempts });
  const player = ledger.player(sub.gameId, sub.playerId);
  if (player && funding.balanceAppliedCoins.gt(0)) {
    player.balanceCoins = player.balanceCoins.minus(funding.balanceAppliedCoins);
    player.balanceUpdatedAt = at;
  }
  if (period.appliesStagedPrice && sub.pendingAmountUsd && period.amountUsd.equals(sub.pendingAmountUsd)) {
    sub.amountUsd = period.amountUsd;
    sub.lastAgreedAmountUsd = period.amountUsd;
    sub.pendingAmountUsd = null;
  }
  sub.status = "active";
  sub.periodSeq = period.periodSeq;
  sub.currentPeriodStart = period.periodStart;
  sub.currentPeriodEnd = period.periodEnd;
  sub.nextChargeAt = period.periodEnd;
  sub.updatedAt = at;
  result.renewals++;
  emitRenewed(ledger, period);
}

function decline(sub: SubscriptionState, period: PeriodState, at: Millis, result: AdvanceResult): void {
  result.declines++;
  const retryNo = period.charge.attempts - 1;
  const offset = DUNNING_RETRY_OFFSETS[retryNo];
  const firstAttemptAt = period.charge.firstAttemptAt ?? at;
  sub.updatedAt = at;
  if (offset === undefined) {
    // Retries exhausted: the period fails and the subscription expires (no event: the spec lists none for it).
    period.status = "failed";
    period.charge.outcome = "failed";
    sub.status = "expired";
    sub.endedAt = at;
    sub.nextChargeAt = null;
    result.expired++;
    return;
  }
  period.charge.outcome = "retrying";
  sub.status = "past_due";
  sub.nextChargeAt = Math.max(at + 1, firstAttemptAt + offset);
}

function emitRenewed(ledger: Ledger, period: PeriodState): void {
  const sub = period.sub;
  const player = ledger.player(sub.gameId, sub.playerId);
  const line = periodLine(ledger, period);
  ledger.emit(sub.gameId, "subscription.renewed", {
    subscription_id: sub.subscriptionId,
    item_id: sub.itemId,
    item_name: sub.itemName,
    player_id: sub.playerId,
    player_email: player?.email ?? null,
    identity_id: player?.identityId ?? null,
    period_id: period.periodId,
    period_seq: period.periodSeq,
    period_start: line.period_start,
    period_end: line.period_end,
    paid_at: line.paid_at,
    amount_usd: usd(period.amountUsd),
    transaction_id: period.transactionId,
    mint_order_id: period.mintOrderId,
    funding: line.funding,
    invo_fee_usd: line.invo_fee_usd,
    partner_revenue_usd: line.partner_revenue_settled_usd,
    attribution: line.attribution,
    attribution_unavailable_reason: period.unavailableReason,
    revenue_share: sub.revenueShare
      ? {
          recipient_player_id: sub.revenueShare.recipientPlayerId,
          percent: usd(sub.revenueShare.percent),
          settled_by_invo: false,
        }
      : null,
    next_charge_at: formatNullable(sub.nextChargeAt),
    current_period_end: formatInstant(sub.currentPeriodEnd),
    settled_by_invo: false,
  });
}
