import { Decimal } from "decimal.js";
import { z } from "zod";
import { Money } from "@/core/money";

/**
 * USD → payout-currency conversion, one rule (README "Money", "Payment files"):
 *
 *   amount = amountUsd × rate, rounded to the cent, half up (half away from zero; amounts are positive).
 *
 * Why half up: it is how banks and payment providers round a converted amount to the cent, and it is the rule the
 * rest of the product already records money with (core/money.ts), so a payout figure is never rounded two ways.
 * Half-even would only matter for sums of many ties; each converted amount here is recorded once and never
 * re-derived, and the file's control sum is the sum of these rounded amounts (never the rounded sum).
 *
 * The rate is "units of the payout currency for one USD" as a decimal string: positive, at most 8 decimal places.
 */

export const fxRateSchema = z
  .string()
  .trim()
  .regex(/^\d{1,6}(\.\d{1,8})?$/, {
    message: "must be a rate such as 0.92345678 (digits, at most 8 decimal places)",
    abort: true,
  })
  .refine((value) => new Money(value).gt(0), { message: "must be greater than 0" });

const usdAmountSchema = z.string().regex(/^\d{1,13}(\.\d{1,2})?$/, { message: "must be a USD amount such as 12.34" });

/** Converts a USD amount at `rate`; returns a two-decimal string. Throws on a malformed amount or rate. */
export function convertUsd(amountUsd: string, rate: string): string {
  const usd = usdAmountSchema.parse(amountUsd);
  const r = fxRateSchema.parse(rate);
  return new Money(usd).times(new Money(r)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}
