import { type Money, money } from "@/lib/money";

/** The price above which the service never applies an increase. */
const NEVER_APPLIED_ABOVE = money("500.00");

/**
 * Why a price change is not sent: an increase above 500.00 USD, which the service would stage and never apply (spec:
 * "an increase to more than double the price the member last agreed to, or above 500.00 USD, is staged but never
 * applied"), leaving a price change that cannot happen. A decrease to such a price applies, and is sent.
 */
export function refusedPriceChange(newPrice: Money, current: Money): string | null {
  return newPrice.gt(NEVER_APPLIED_ABOVE) && newPrice.gt(current)
    ? "cannot be raised above USD 500.00: the service would stage it and never apply it (the old price keeps billing)"
    : null;
}

/**
 * What the service may do with a staged price change it will not apply: more than double the current price may be
 * more than double the price the member last agreed to (not reported), which it stages and never applies. Said before
 * confirming and again in the answer. (An increase above 500.00, certain never to apply, is not sent: see above.)
 */
export function unappliedPriceWarning(newPrice: Money, current: Money): string | null {
  if (refusedPriceChange(newPrice, current)) return null;
  if (newPrice.gt(current.times(2)))
    return (
      "More than double the current price: if that is above double the price the member last agreed to, it is " +
      "staged but never applied."
    );
  return null;
}

/**
 * Why a new price is not sent, as the subscription stands: on a pcstore subscription an increase, which the service
 * refuses (PCSTORE_REAUTHORIZATION_REQUIRED; a decrease stages), else what refusedPriceChange says. The page says it on
 * the field; the change refuses it, sending nothing.
 */
export function priceChangeRefusal(newPrice: Money, current: Money, fundingRail: string): string | null {
  if (fundingRail === "pcstore" && newPrice.gt(current))
    return "cannot be raised on a pcstore subscription: the player re-authorizes in the pcstore (a decrease stages)";
  return refusedPriceChange(newPrice, current);
}

/**
 * Why a price or payment method change is not sent to a subscription set to end at its paid period's end ("retired at
 * paid_through with no further charge"): the service would take it and never use it. The page offers neither.
 */
export const ENDING_CHANGE_REFUSAL =
  "It ends at the end of its paid period with no further charge: a price or payment method change would never be used.";

/** Why a card is not sent to a pcstore subscription: the service refuses the route (NOT_A_CARD_SUBSCRIPTION). */
export const PCSTORE_CARD_REFUSAL = "The payment method of a pcstore subscription is managed in the pcstore.";
