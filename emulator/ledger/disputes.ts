import { money, usdToCoins } from "@/lib/money";
import { ApiError } from "../errors";
import { formatInstant, type Millis } from "../time";
import type { Ledger } from "./ledger";
import { ledgerChanged } from "./revision";
import { ZERO } from "./settlement";
import type { PeriodState } from "./types";
import { usd } from "./views";

/**
 * Chargebacks on the card charge of a renewal, opened and closed from the admin API. Spec, Events: "purchase.disputed
 * | Chargeback opened; fires again on close with dispute_status won or lost | debit on lost | opened: order_id,
 * transaction_id, payment_intent_id, charge_id, dispute_id, reason, usd_amount; closed: order_id, dispute_id,
 * dispute_status, currency_debited, new_balance".
 *
 * A dispute is plain data (strings and numbers only) kept in `Ledger.disputes`, so the ledger's state stays
 * serialisable; it names its period by id.
 */

export type DisputeStatus = "open" | "won" | "lost";

export type DisputeState = {
  disputeId: string;
  gameId: string;
  periodId: number;
  subscriptionId: string;
  orderId: string;
  transactionId: string | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  reason: string;
  /** Decimal string, two decimals. */
  usdAmount: string;
  status: DisputeStatus;
  openedAt: Millis;
  closedAt: Millis | null;
  /** Coins taken back from the player's wallet on a loss (decimal string); "0.00" on a win. */
  currencyDebited: string | null;
  newBalance: string | null;
};

export function openDispute(
  ledger: Ledger,
  period: PeriodState,
  input: { reason: string; usdAmount: string | null; emitEvents: boolean },
): DisputeState {
  const charged = period.funding?.cardChargedUsd ?? ZERO;
  if (period.paidAt === null || !period.mintOrderId || charged.lte(0)) {
    throw new ApiError(
      409,
      "ADMIN_CONFLICT",
      "Only a settled period with a card charge (a mint order) can be disputed.",
    );
  }
  if (ledger.disputes.some((d) => d.periodId === period.periodId && d.status === "open")) {
    throw new ApiError(409, "ADMIN_CONFLICT", "This period already has an open dispute.");
  }
  const amount = input.usdAmount === null ? charged : money(input.usdAmount);
  if (amount.lte(0) || amount.gt(charged))
    throw new ApiError(
      400,
      "ADMIN_INVALID",
      `usd_amount must be above 0.00 and at most the card charge (${usd(charged)}).`,
    );
  const dispute: DisputeState = {
    disputeId: ledger.newId("dp_"),
    gameId: period.sub.gameId,
    periodId: period.periodId,
    subscriptionId: period.sub.subscriptionId,
    orderId: period.mintOrderId,
    transactionId: period.transactionId,
    paymentIntentId: period.paymentReference,
    chargeId: period.paymentReference ? `ch_${period.paymentReference.slice(3)}` : null,
    reason: input.reason,
    usdAmount: usd(amount),
    status: "open",
    openedAt: ledger.now,
    closedAt: null,
    currencyDebited: null,
    newBalance: null,
  };
  ledger.disputes.push(dispute);
  ledgerChanged(ledger);
  // The disputed amount is held while the dispute is open (fee_legs.disputed_amount_held_usd).
  period.disputedAmountHeldUsd = period.disputedAmountHeldUsd.plus(amount);
  if (input.emitEvents) {
    ledger.emit(dispute.gameId, "purchase.disputed", {
      order_id: dispute.orderId,
      transaction_id: dispute.transactionId,
      payment_intent_id: dispute.paymentIntentId,
      charge_id: dispute.chargeId,
      dispute_id: dispute.disputeId,
      reason: dispute.reason,
      usd_amount: dispute.usdAmount,
    });
  }
  return dispute;
}

/**
 * Closes a dispute. Lost: the coins the charge minted are taken back from the player's wallet ("debit on lost"; the
 * wallet may go below zero, as on refunds). Won: nothing moves. Either way the hold on the period is released.
 */
export function closeDispute(
  ledger: Ledger,
  dispute: DisputeState,
  status: "won" | "lost",
  emitEvents: boolean,
): DisputeState {
  if (dispute.status !== "open")
    throw new ApiError(409, "ADMIN_CONFLICT", `This dispute is already closed (${dispute.status}).`);
  const period = ledger.periods.get(dispute.periodId);
  const player = period ? ledger.player(dispute.gameId, period.sub.playerId) : undefined;
  const debit = status === "lost" ? usdToCoins(dispute.usdAmount) : ZERO;
  if (player && debit.gt(0)) {
    player.balanceCoins = player.balanceCoins.minus(debit);
    player.balanceUpdatedAt = ledger.now;
  }
  if (period) {
    const held = period.disputedAmountHeldUsd.minus(money(dispute.usdAmount));
    period.disputedAmountHeldUsd = held.lt(0) ? ZERO : held;
  }
  dispute.status = status;
  dispute.closedAt = ledger.now;
  ledgerChanged(ledger);
  dispute.currencyDebited = usd(debit);
  dispute.newBalance = player ? usd(player.balanceCoins) : null;
  if (emitEvents) {
    ledger.emit(dispute.gameId, "purchase.disputed", {
      order_id: dispute.orderId,
      dispute_id: dispute.disputeId,
      dispute_status: status,
      currency_debited: dispute.currencyDebited,
      new_balance: dispute.newBalance,
    });
  }
  return dispute;
}

/** The admin API's view of a dispute. */
export function disputeView(d: DisputeState): Record<string, unknown> {
  return {
    dispute_id: d.disputeId,
    game_id: d.gameId,
    period_id: d.periodId,
    subscription_id: d.subscriptionId,
    order_id: d.orderId,
    transaction_id: d.transactionId,
    payment_intent_id: d.paymentIntentId,
    charge_id: d.chargeId,
    reason: d.reason,
    usd_amount: d.usdAmount,
    dispute_status: d.status,
    opened_at: formatInstant(d.openedAt),
    closed_at: d.closedAt === null ? null : formatInstant(d.closedAt),
    currency_debited: d.currencyDebited,
    new_balance: d.newBalance,
  };
}
