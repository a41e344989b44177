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
