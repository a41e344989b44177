import type { ComponentProps } from "react";
import type { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";

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

type DialogHandlers = Pick<ComponentProps<typeof ConfirmDialog>, "onConfirmed">;

/**
 * What every change dialog of a subscription sends back (the subscription as shown) and its size; each dialog names
 * its game itself (`gameId`, as tests/structure/shown-game.test.ts checks).
 */
export function changeDialogProps(subscription: SubscriptionSummary, handlers: DialogHandlers) {
  return {
    size: "md" as const,
    hiddenFields: { subscriptionId: subscription.subscriptionId, seen: subscription.seen },
    ...handlers,
  };
}
