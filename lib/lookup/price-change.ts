import { type Money, money } from "@/lib/money";

/**
 * What the service does with a staged price change it will not apply (spec: "an increase to more than double the
 * price the member last agreed to, or above 500.00 USD, is staged but never applied"). Above 500.00 is certain; more
 * than double the current price may be (the price the member last agreed to is not reported). Said before confirming
 * and again in the answer.
 */
export function unappliedPriceWarning(newPrice: Money, current: Money): string | null {
  if (newPrice.gt(money("500.00")))
    return "Above USD 500.00: the service stages it but never applies it; the old price keeps billing.";
  if (newPrice.gt(current.times(2)))
    return (
      "More than double the current price: if that is above double the price the member last agreed to, it is " +
      "staged but never applied."
    );
  return null;
}
