/** What the subscription page hands its change dialogs: the subscription as shown, and the player's cards. */

export type SubscriptionSummary = {
  /** The game the page was shown for. */
  gameId: string;
  subscriptionId: string;
  status: string;
  terminal: boolean;
  amountUsd: string;
  pendingAmountUsd: string | null;
  paidThrough: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** What the page showed (subscriptionSeen), sent back with each change: refused when the subscription moved since. */
  seen: string;
  /** The service's next touch (a retry in dunning, a challenge's deadline). */
  nextChargeAt: string | null;
  fundingRail: "card" | "pcstore";
  walletOnly: boolean;
  hasPaymentMethod: boolean;
};

export type CardOption = { id: number; label: string };
