import type { Decimal } from "decimal.js";
import { Money, proRata, sumMoney, usdToCoins } from "@/lib/money";
import { ApiError } from "../errors";
import { formatInstant, type Millis } from "../time";
import type { Ledger } from "./ledger";
import { paidThroughChanged } from "./renewals";
import { CARD_FEE_REPORTED_SINCE, ZERO } from "./settlement";
import type { PeriodState, RefundEvent, SubscriptionState } from "./types";
import { usd } from "./views";

export type RefundInput = {
  at: Millis;
  amountUsd: Decimal | null;
  clientRequestId: string | null;
  reason: string | null;
  /** false: the refund is known only from the period row (no receipt, coarse reporting). */
  receipt: boolean;
  /** Live refunds move the wallet and emit events; refunds loaded from a scenario are history and do neither. */
  live: boolean;
  /** True while a scenario loads: the loader sets the subscription's state and schedule itself afterwards. */
  loading?: boolean;
};

export type RefundOutcome = { event: RefundEvent; receipt: Record<string, unknown> | null };

/**
 * Picks the period a refund applies to. Spec: period_seq defaults to "the most recent billed period", and "a partly
 * refunded period is still billed" while a fully refunded one is refunded: the default is the most recent period
 * that is paid (partly refunded or not). Refusals PERIOD_NOT_FOUND, NO_PAID_PERIOD (no billed period: nothing
 * collected, or everything collected already refunded in full), PERIOD_NOT_REFUNDABLE (never collected),
 * ALREADY_REFUNDED (a named period refunded in full).
 */
export function resolveRefundPeriod(sub: SubscriptionState, periodSeq: number | null): PeriodState {
  let period: PeriodState | undefined;
  if (periodSeq === null) {
    for (const candidate of sub.periods) {
      if (candidate.status !== "paid") continue;
      if (!period || candidate.periodSeq > period.periodSeq) period = candidate;
    }
    if (!period) {
      const collected = sub.periods.some((p) => p.paidAt !== null);
      throw new ApiError(
        409,
        "NO_PAID_PERIOD",
        collected
          ? "No billed period is left to refund: every collected period has been refunded in full."
          : "Nothing has been collected on this subscription yet.",
      );
    }
  } else {
    period = sub.periods.find((p) => p.periodSeq === periodSeq);
    if (!period) throw new ApiError(404, "PERIOD_NOT_FOUND", `No period ${periodSeq} on this subscription.`);
  }
  if (period.paidAt === null) {
    throw new ApiError(409, "PERIOD_NOT_REFUNDABLE", "This period was never collected.", {
      period_status: period.status,
    });
  }
  if (period.refundedTotalUsd.gte(period.amountUsd)) {
    throw new ApiError(409, "ALREADY_REFUNDED", "This period has already been fully refunded.", {
      refunded_amount_usd: usd(period.refundedTotalUsd),
      amount_usd: usd(period.amountUsd),
    });
  }
  return period;
}

/** Refusals that depend on how the period was charged; spec: "refused before anything moves". */
export function checkRefundable(period: PeriodState): void {
  const funding = period.funding;
  if (!funding)
    throw new ApiError(409, "PERIOD_NOT_REFUNDABLE", "This period was never collected.", {
      period_status: period.status,
    });
  if (funding.pcstoreChargedUsd.gt(0)) {
    throw new ApiError(409, "PCSTORE_REFUND_NOT_SUPPORTED", "Periods charged through the pcstore are not refundable.");
  }
  if (funding.cardChargedUsd.gt(0)) {
    if (!period.mintOrderId)
      throw new ApiError(409, "MINT_ORDER_MISSING", "The card charge record of this period cannot be found.");
    if (!period.paymentReference)
      throw new ApiError(409, "NO_PAYMENT_REFERENCE", "The card charge of this period has no payment reference.");
  }
}

export function fundingShape(period: PeriodState): "wallet" | "card" | "mixed" {
  const funding = period.funding;
  if (!funding || funding.cardChargedUsd.lte(0)) return "wallet";
  return funding.balanceAppliedCoins.gt(0) ? "mixed" : "card";
}

/**
 * Records a refund of `amount` on a settled period.
 *
 * Rules (spec, "Refund effects", and shared/spec/README.md decision 4): a partial refund returns nothing to the card
 * and credits the wallet at 10 coins per USD; the refund that completes the period returns the whole card charge,
 * re-credits the coins taken from the pre-existing balance and reclaims the coins handed out by earlier partials.
 * Partner revenue and attribution are reversed pro rata, and the completing refund reverses exactly what remains, so
 * a fully refunded period nets to zero to the cent. The service's fee is retained.
 */
export function applyRefund(ledger: Ledger, period: PeriodState, input: RefundInput): RefundOutcome {
  const sub = period.sub;
  const remaining = period.amountUsd.minus(period.refundedTotalUsd);
  const amount = input.amountUsd ?? remaining;
  if (amount.lte(0) || amount.gt(remaining)) throw new Error("refund amount outside the remaining refundable amount");
  const before = period.refundedTotalUsd;
  const after = before.plus(amount);
  const isFull = after.equals(period.amountUsd);
  const attributed = period.attribution?.attributedUsd ?? ZERO;
  const priorAttributed = sumMoney(period.refunds.map((e) => e.reversedAttributedUsd));
  const priorPartner = sumMoney(period.refunds.map((e) => e.partnerRevenueReversedUsd));
  const leftAttributed = attributed.minus(priorAttributed);
  const leftPartner = period.partnerRevenueSettledUsd.minus(priorPartner);
  // Pro-rata figures are capped at what is left, so rounding up on many small partials never over-reverses.
  const reversedAttributed = isFull
    ? leftAttributed
    : Money.min(proRata(attributed, amount, period.amountUsd), leftAttributed);
  const partnerReversed = isFull
    ? leftPartner
    : Money.min(proRata(period.partnerRevenueSettledUsd, amount, period.amountUsd), leftPartner);
  const funding = period.funding;
  const cardRefunded = isFull && funding ? funding.cardChargedUsd : ZERO;
  const issued = cardRefunded.gt(0) ? (period.issuedCardRefund ?? null) : null;
  const priorPartialCoins = sumMoney(
    period.refunds.filter((e) => e.mode === "prorata").map((e) => e.balanceDeltaCoins),
  );
  const balanceDelta = isFull ? (funding?.balanceAppliedCoins ?? ZERO).minus(priorPartialCoins) : usdToCoins(amount);
  const walletFunded = !funding || (funding.cardChargedUsd.lte(0) && funding.pcstoreChargedUsd.lte(0));
  const event: RefundEvent = {
    refundedAt: input.at,
    amountUsd: amount,
    cumulativeBeforeUsd: before,
    cumulativeAfterUsd: after,
    isFullRefund: isFull,
    transactionId: ledger.newId("rtx_"),
    reversedAttributedUsd: reversedAttributed,
    partnerRevenueReversedUsd: partnerReversed,
    reversalBasis: partnerReversed.lte(0) ? "none" : walletFunded ? "sale_fee_row_reversed" : "clawback",
    mode: isFull ? "full" : "prorata",
    cardRefundedUsd: cardRefunded,
    processorRefundReference: issued?.reference ?? (cardRefunded.gt(0) && input.receipt ? ledger.newId("re_") : null),
    processorRefundAdopted: issued !== null,
    balanceDeltaCoins: balanceDelta,
    hasReceipt: input.receipt,
    clientRequestId: input.clientRequestId,
    reason: input.reason,
  };
  period.refunds.push(event);
  period.refundedTotalUsd = after;
  if (issued) period.issuedCardRefund = null;
  sub.updatedAt = Math.max(sub.updatedAt, input.at);
  // Spec: "Paid period + full refund: period_status refunded and the period no longer counts toward paid_through; the
  // subscription is not cancelled." A retirement pending at period end follows paid_through back.
  if (isFull) {
    period.status = "refunded";
    if (!input.loading) paidThroughChanged(ledger, sub);
  }
  ledger.markReversalsChanged(sub.gameId);

  const player = ledger.player(sub.gameId, sub.playerId);
  if (input.live && player) {
    player.balanceCoins = player.balanceCoins.plus(balanceDelta);
    player.balanceUpdatedAt = input.at;
  }
  if (!input.receipt) return { event, receipt: null };

  const receipt = buildReceipt(period, event, player?.balanceCoins ?? ZERO);
  if (input.clientRequestId !== null) {
    ledger.receipts.set(ledger.receiptKey(sub.gameId, sub.subscriptionId, input.clientRequestId), {
      body: receipt,
      lost: false,
      transactionId: event.transactionId,
    });
  }
  if (input.live) emitRefundEvents(ledger, period, event, receipt, player);
  return { event, receipt };
}

function buildReceipt(period: PeriodState, event: RefundEvent, newBalance: Decimal): Record<string, unknown> {
  const sub = period.sub;
  const attribution = period.attribution;
  const reversedToDate = sumMoney(period.refunds.map((e) => e.reversedAttributedUsd));
  const receipt: Record<string, unknown> = {
    status: "refunded",
    idempotent_replay: false,
    refund_key: `rfk_${event.transactionId.slice(4)}`,
    client_request_id: event.clientRequestId,
    subscription_id: sub.subscriptionId,
    period_seq: period.periodSeq,
    transaction_id: event.transactionId,
    refunded_amount_usd: usd(event.amountUsd),
    total_refunded_amount_usd: usd(event.cumulativeAfterUsd),
    remaining_refundable_usd: usd(period.amountUsd.minus(event.cumulativeAfterUsd)),
    is_full_refund: event.isFullRefund,
    funding_shape: fundingShape(period),
    balance_delta_coins: usd(event.balanceDeltaCoins),
    card_refunded_usd: usd(event.cardRefundedUsd),
    processor_refund_reference: event.processorRefundReference,
    processor_refund_adopted: event.processorRefundAdopted,
    invo_fee_retained: true,
    partner_revenue_reversed_usd: usd(event.partnerRevenueReversedUsd),
    partner_revenue_reversal_mode: event.mode,
    reason: event.reason,
    refunded_at: formatInstant(event.refundedAt),
    new_balance: usd(newBalance),
    revenue_share_attribution: attribution
      ? {
          recipient_player_id: attribution.recipientPlayerId,
          percent: usd(attribution.percentAtRenewal),
          original_attributed_amount_usd: usd(attribution.attributedUsd),
          refunded_attributed_amount_usd: usd(reversedToDate),
          net_attributed_amount_usd: usd(attribution.attributedUsd.minus(reversedToDate)),
          settled_by_invo: false,
        }
      : null,
  };
  // Spec: "Also on the receipt since 2026-09-28: card_fee_charged_to_partner_usd".
  if (event.refundedAt >= CARD_FEE_REPORTED_SINCE) {
    receipt.card_fee_charged_to_partner_usd = usd(event.amountUsd.minus(event.partnerRevenueReversedUsd));
  }
  return receipt;
}

function emitRefundEvents(
  ledger: Ledger,
  period: PeriodState,
  event: RefundEvent,
  receipt: Record<string, unknown>,
  player: ReturnType<Ledger["player"]>,
): void {
  const sub = period.sub;
  const game = ledger.games.get(sub.gameId);
  ledger.emit(sub.gameId, "subscription.refunded", {
    subscription_id: sub.subscriptionId,
    item_id: sub.itemId,
    period_seq: period.periodSeq,
    transaction_id: event.transactionId,
    client_request_id: event.clientRequestId,
    player_email: player?.email ?? null,
    identity_id: player?.identityId ?? null,
    amount_usd: usd(event.amountUsd),
    total_refunded_amount_usd: usd(event.cumulativeAfterUsd),
    period_amount_usd: usd(period.amountUsd),
    is_full_refund: event.isFullRefund,
    reason: event.reason,
    period_status: period.status,
    refund: {
      funding_shape: receipt.funding_shape,
      balance_delta_coins: receipt.balance_delta_coins,
      card_refunded_usd: receipt.card_refunded_usd,
      processor_refund_adopted: receipt.processor_refund_adopted,
      new_balance: receipt.new_balance,
      invo_fee_retained: true,
      partner_revenue_reversed_usd: receipt.partner_revenue_reversed_usd,
      partner_revenue_reversal_mode: receipt.partner_revenue_reversal_mode,
    },
    revenue_share_attribution: receipt.revenue_share_attribution,
    metadata: sub.metadata,
  });
  // Spec: purchase.refunded accompanies a refund that returns money to the card (the mint order is refunded).
  if (event.cardRefundedUsd.gt(0) && period.funding) {
    ledger.emit(sub.gameId, "purchase.refunded", {
      order_id: period.mintOrderId,
      transaction_id: period.transactionId,
      payment_intent_id: period.paymentReference,
      charge_id: period.paymentReference ? `ch_${period.paymentReference.slice(3)}` : null,
      usd_refunded: usd(event.cardRefundedUsd),
      usd_original: usd(period.funding.cardChargedUsd),
      fully_refunded: true,
      currency_debited: usd(usdToCoins(period.funding.cardChargedUsd)),
      new_balance: usd(player?.balanceCoins ?? ZERO),
      currency_name: game?.currencyName ?? "Coins",
      order_status: "refunded",
    });
  }
}

/**
 * A refund that returns card money on a subscription armed to fail after the processor issued it: the card refund is
 * kept on the period, unrecorded, and the call answers 502 PROCESSOR_ERROR ("retry with the same key"). The next
 * refund completing the period records it (processor_refund_adopted true, the same processor reference) instead of
 * refunding the card again.
 */
export function failAfterCardRefundIssued(ledger: Ledger, period: PeriodState, amountUsd: Decimal | null): void {
  const sub = period.sub;
  if (!sub.cardRefundFailsAfterIssue || period.issuedCardRefund) return;
  const completes = amountUsd === null || period.refundedTotalUsd.plus(amountUsd).gte(period.amountUsd);
  if (!completes || !period.funding?.cardChargedUsd.gt(0)) return;
  sub.cardRefundFailsAfterIssue = false;
  period.issuedCardRefund = { reference: ledger.newId("re_") };
  throw new ApiError(
    502,
    "PROCESSOR_ERROR",
    "The processor failed after issuing the refund; retry with the same key.",
    {
      error_code_public: "PROCESSOR_ERROR",
    },
  );
}
