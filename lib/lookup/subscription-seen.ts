import { z } from "zod";

/** The fields of a subscription its cancel, price and card dialogs are decided on. */
export type SeenSubscriptionFields = {
  status: string;
  cancel_at_period_end: boolean;
  paid_through: string | null;
  amount_usd: string;
  pending_amount_usd: string | null;
  wallet_only: boolean;
  has_payment_method: boolean;
  /** The service's own mark of a change (a card swapped leaves every other field as it was). */
  updated_at: string;
};

/**
 * What a page showed of a subscription, sent back with a cancel, price or card change: the change is refused when any
 * of these moved since (a colleague cancelled it, refunded its paid time, staged a price or changed its card), so that
 * nobody confirms what the dialog said about a subscription that is no longer so.
 */
export function subscriptionSeen(sub: SeenSubscriptionFields): string {
  return [
    sub.status,
    sub.cancel_at_period_end ? "ending" : "renewing",
    sub.paid_through ?? "-",
    sub.amount_usd,
    sub.pending_amount_usd ?? "-",
    sub.wallet_only ? "wallet" : "card",
    sub.has_payment_method ? "method" : "none",
    sub.updated_at,
  ].join("|");
}

/** The staged price a page showed (the change is refused unless it still stands), or null for none. */
export function stagedPriceSeen(seen: string): string | null {
  const staged = seen.split("|")[4];
  return staged === undefined || staged === "-" ? null : staged;
}

export const subscriptionSeenSchema = z
  .string()
  .min(1, { message: "is missing: reload the page" })
  .max(400, { message: "is not what a page sends" });

export const SUBSCRIPTION_CHANGED =
  "The subscription changed since this page was drawn (cancelled, refunded, repriced or its card changed): the page " +
  "shows it again; look at it before trying again.";
