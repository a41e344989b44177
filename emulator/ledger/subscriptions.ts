import type { Decimal } from "decimal.js";
import { ApiError } from "../errors";
import { formatInstant, formatNullable } from "../time";
import type { Ledger } from "./ledger";
import { reschedule } from "./renewals";
import { cardExpired } from "./settlement";
import type { SubscriptionState } from "./types";
import { cardView, isTerminal, paidThrough, subscriptionView, usd } from "./views";

/** Reserved metadata key the emulator writes cancellation reasons under (spec: "reserved key _invo..."). */
export const CANCEL_REASON_KEY = "_invo_cancellation_reason";

export type CancelInput = { atPeriodEnd: boolean; reason: string | null };

/** Spec, "States and transitions" table for cancel. */
export function cancelSubscription(
  ledger: Ledger,
  sub: SubscriptionState,
  input: CancelInput,
): Record<string, unknown> {
  const now = ledger.now;
  if (isTerminal(sub)) {
    // Spec: "canceled or expired | cancel | any | unchanged | 200 with already_canceled true and final_status".
    // The access end is the one the ending gave.
    const through = paidThrough(sub);
    const accessUntil = sub.endedAt === null ? null : accessEnd(through, sub.endedAt);
    return {
      status: "success",
      already_canceled: true,
      final_status: sub.status,
      cancel_at_period_end: sub.cancelAtPeriodEnd,
      effective_at: formatNullable(sub.endedAt),
      current_period_end: formatInstant(sub.currentPeriodEnd),
      access_until: formatNullable(accessUntil),
      paid_through: formatNullable(through),
      subscription: subscriptionView(ledger, sub),
    };
  }
  const through = paidThrough(sub);
  const paidWindowOpen = through !== null && through > now;
  const extra: Record<string, unknown> = {};
  let effectiveAt: number;
  let accessUntil: number;
  if (input.atPeriodEnd && paidWindowOpen) {
    // Spec: "live with cancel_at_period_end true ... Retired at paid_through with no further charge".
    sub.cancelAtPeriodEnd = true;
    effectiveAt = through;
    accessUntil = through;
  } else {
    if (input.atPeriodEnd) {
      // Spec: "nothing paid, or paid window elapsed | ended immediately | terminated_immediately true, downgrade_reason
      // NO_PAID_PERIOD".
      extra.terminated_immediately = true;
      extra.downgrade_reason = "NO_PAID_PERIOD";
      extra.message = "No paid period is running, so the subscription ended immediately.";
    }
    // Spec: "at_period_end false | ended now | access_until = paid_through if in the future, else now".
    sub.status = "canceled";
    sub.cancelAtPeriodEnd = false;
    sub.endedAt = now;
    sub.nextChargeAt = null;
    forgiveOpenPeriod(sub);
    effectiveAt = now;
    accessUntil = accessEnd(through, now);
  }
  sub.canceledAt = now;
  sub.updatedAt = now;
  if (input.reason !== null) sub.metadata = { ...(sub.metadata ?? {}), [CANCEL_REASON_KEY]: input.reason };
  if (sub.fundingRail === "pcstore") {
    sub.pcstoreAgreementStatus = "canceled";
    extra.pcstore_agreement_status = "canceled";
    extra.pcstore_agreement_canceled = true;
  }
  reschedule(ledger, sub);
  const player = ledger.player(sub.gameId, sub.playerId);
  // Spec: "One subscription.canceled event fires at request time in either mode."
  ledger.emit(sub.gameId, "subscription.canceled", {
    subscription_id: sub.subscriptionId,
    item_id: sub.itemId,
    player_id: sub.playerId,
    player_email: player?.email ?? null,
    identity_id: player?.identityId ?? null,
    status: sub.status,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    canceled_at: formatInstant(now),
    effective_at: formatInstant(effectiveAt),
    access_until: formatInstant(accessUntil),
    paid_through: formatNullable(through),
    reason: input.reason,
    terminated_immediately: extra.terminated_immediately === true,
    metadata: sub.metadata,
  });
  return {
    status: "success",
    already_canceled: false,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    effective_at: formatInstant(effectiveAt),
    current_period_end: formatInstant(sub.currentPeriodEnd),
    access_until: formatInstant(accessUntil),
    paid_through: formatNullable(through),
    ...extra,
    subscription: subscriptionView(ledger, sub),
  };
}

/**
 * A subscription ended while a period waits to be charged (dunning, or awaiting authentication): that period is never
 * charged, so it closes as `forgiven` (README, choice 29), and a staged price no renewal will apply is cleared.
 */
function forgiveOpenPeriod(sub: SubscriptionState): void {
  const open = sub.periods[sub.periods.length - 1];
  if (open?.status === "pending") {
    open.status = "forgiven";
    open.charge.outcome = "forgiven";
  }
  sub.pendingAmountUsd = null;
}

/** Spec, amount body: the new price is staged and applies at the next successful renewal; no proration. */
export function changeAmount(ledger: Ledger, sub: SubscriptionState, amount: Decimal): Record<string, unknown> {
  if (isTerminal(sub)) throw new ApiError(409, "SUBSCRIPTION_TERMINAL", `The subscription is ${sub.status}.`);
  if (ledger.paused) throw pausedError();
  const old = sub.amountUsd;
  if (sub.fundingRail === "pcstore" && amount.gt(old)) {
    // Spec: "on a pcstore subscription an increase is refused and a decrease stages".
    throw new ApiError(
      409,
      "PCSTORE_REAUTHORIZATION_REQUIRED",
      "A price increase on a pcstore subscription needs a new authorization.",
      {
        current_amount_usd: usd(old),
        requested_amount_usd: usd(amount),
      },
    );
  }
  // Spec: "sending the current price clears a staged change (change_queued false)".
  const queued = !amount.equals(old);
  sub.pendingAmountUsd = queued ? amount : null;
  sub.updatedAt = ledger.now;
  const through = paidThrough(sub);
  const open = sub.periods[sub.periods.length - 1];
  const dunning = open?.status === "pending";
  // The open dunning window is billed at the old price first; the new price starts with the window after it. A window
  // opened at a staged price that is now cleared or replaced is billed at the current price instead: a price support
  // just cleared is never charged.
  if (open && dunning && open.appliesStagedPrice) {
    open.amountUsd = sub.amountUsd;
    open.appliesStagedPrice = false;
  }
  const nextSeq = sub.periodSeq + (dunning ? 2 : 1);
  const appliesFrom =
    through === null ? null : dunning ? (sub.periods[sub.periods.length - 1]?.periodEnd ?? null) : sub.currentPeriodEnd;
  return {
    status: "success",
    old_amount_usd: usd(old),
    new_amount_usd: usd(amount),
    pending_amount_usd: sub.pendingAmountUsd ? usd(sub.pendingAmountUsd) : null,
    change_queued: queued,
    applies_from: queued ? formatNullable(appliesFrom) : null,
    applies_from_period_seq: queued ? nextSeq : null,
    paid_through: formatNullable(through),
    current_period_end: formatInstant(sub.currentPeriodEnd),
    prorated: false,
    subscription: subscriptionView(ledger, sub),
  };
}

export type PaymentMethodInput = { cardId: number | null; walletOnly: boolean | null };

/** Spec, payment-method body and its refusals (card subscriptions only). */
export function changePaymentMethod(
  ledger: Ledger,
  sub: SubscriptionState,
  input: PaymentMethodInput,
): Record<string, unknown> {
  if (sub.fundingRail === "pcstore") {
    throw new ApiError(409, "NOT_A_CARD_SUBSCRIPTION", "The payment-method route applies to card subscriptions only.");
  }
  if (isTerminal(sub)) throw new ApiError(409, "SUBSCRIPTION_TERMINAL", `The subscription is ${sub.status}.`);
  if (ledger.paused) throw pausedError();
  if (input.walletOnly === true && input.cardId !== null) {
    throw new ApiError(400, "WALLET_ONLY_CONFLICT", "wallet_only true cannot be sent with a card.");
  }
  const previous = sub.cardId;
  if (input.walletOnly === true) {
    sub.walletOnly = true;
    sub.cardId = null;
    sub.updatedAt = ledger.now;
    return {
      status: "success",
      replaced: previous !== null,
      wallet_only: true,
      card: null,
      subscription: subscriptionView(ledger, sub),
    };
  }
  if (input.cardId === null) throw new ApiError(400, "PAYMENT_METHOD_REQUIRED", "player_card_id is required.");
  const card = ledger.cards.get(input.cardId);
  if (!card || card.gameId !== sub.gameId || card.playerId !== sub.playerId) {
    throw new ApiError(404, "PAYMENT_METHOD_NOT_FOUND", "No such card for this player in this game.");
  }
  if (card.removed) throw new ApiError(409, "PAYMENT_METHOD_UNAVAILABLE", "The card was removed.");
  if (cardExpired(card.expMonth, card.expYear, ledger.now)) {
    throw new ApiError(400, "PAYMENT_METHOD_EXPIRED", "The card has expired.");
  }
  if (sub.walletOnly && input.walletOnly !== false) {
    // Spec: "On a wallet_only subscription, wallet_only false must be passed to convert."
    throw new ApiError(
      409,
      "WALLET_ONLY_SUBSCRIPTION",
      "This subscription is wallet-only; send wallet_only false to attach a card.",
    );
  }
  sub.walletOnly = false;
  sub.cardId = card.cardId;
  sub.updatedAt = ledger.now;
  return {
    status: "success",
    replaced: previous !== null && previous !== card.cardId,
    wallet_only: false,
    card: cardView(card),
    subscription: subscriptionView(ledger, sub),
  };
}

function pausedError(): ApiError {
  return new ApiError(503, "FLOW_PAUSED", "Changes are paused for maintenance; retry later.", { status: "paused" });
}

/** Spec: "access_until = paid_through if in the future, else now", for a subscription ended at `endedAt`. */
function accessEnd(through: number | null, endedAt: number): number {
  return through !== null && through > endedAt ? through : endedAt;
}
