import { Decimal } from "decimal.js";
import { z } from "zod";

/**
 * Money in Payout Desk is decimal from end to end: strings at the API edge, `numeric` in Postgres and a
 * Decimal here. A JS number never holds an amount.
 *
 * Rounding rule (written down in README.md, "Money"): amounts are rounded to the cent, half away from zero,
 * at the moment a figure is recorded; recorded figures are never recomputed.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -30, toExpPos: 40 });
export type Money = Decimal;

const DECIMAL_PATTERN = /^-?\d{1,15}(\.\d{1,12})?$/;

/** A decimal amount as the service sends it: a string such as "10.00" or "-0.35". */
export const decimalStringSchema = z
  .string()
  .regex(DECIMAL_PATTERN, { message: "must be a decimal number such as 12.34" });

/**
 * A user-typed amount in USD: positive, at most two decimals. The format check aborts: zod 4 runs later checks even
 * after a failed one, and "greater than 0" would be asked of text that is not a number ("", "abc", "12,50").
 */
export const usdInputSchema = z
  .string()
  .trim()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, {
    message: "must be an amount in USD with at most two decimals, such as 12.50",
    abort: true,
  })
  .refine((value) => new Money(value).gt(0), { message: "must be greater than 0" });

export function isDecimalString(value: string): boolean {
  return DECIMAL_PATTERN.test(value);
}

/** Parses a decimal string; throws on anything that is not one (no silent NaN). */
export function money(value: string | Decimal): Decimal {
  if (value instanceof Decimal) return new Money(value);
  if (!DECIMAL_PATTERN.test(value)) throw new Error(`not a decimal amount: ${JSON.stringify(value)}`);
  return new Money(value);
}

/** Rounds to the cent, half away from zero (1.005 -> 1.01, -1.005 -> -1.01). */
export function roundCents(value: Decimal): Decimal {
  return new Money(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/**
 * A statement's net from the service's gross and reversed, which may carry more than two decimals: each rounded to
 * the cent first (as a statement shows them), then their difference, so the three figures agree to the cent.
 * PostgreSQL's `round(x, 2) - round(y, 2)` on numeric is the same rule (half away from zero).
 */
export function netInCents(gross: string | Decimal, reversed: string | Decimal): Decimal {
  const cents = (v: string | Decimal) => roundCents(typeof v === "string" ? money(v) : v);
  return cents(gross).minus(cents(reversed));
}

/** The canonical two-decimal string of an amount, rounding half away from zero if it has more places. */
export function formatUsd(value: string | Decimal): string {
  const rounded = roundCents(typeof value === "string" ? money(value) : value);
  const text = rounded.toFixed(2);
  return text === "-0.00" ? "0.00" : text;
}

/**
 * An amount exactly, with at least two places (10 -> "10.00", 0.125 -> "0.125"): a sum of the service's figures, kept
 * as exact as its parts.
 */
export function formatExact(value: Decimal): string {
  const text = new Money(value).toFixed(Math.max(2, value.decimalPlaces()));
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

/** A figure as stored, exactly, with at least two places (3.3 is 3.30, 0.125 stays 0.125). */
export function exactAmount(value: string): string {
  return formatExact(money(value));
}

/** Rounds `base × percent / 100` to the cent (attribution and fee rule). */
export function percentOf(base: string | Decimal, percent: string | Decimal): Decimal {
  const b = typeof base === "string" ? money(base) : base;
  const p = typeof percent === "string" ? money(percent) : percent;
  return roundCents(b.times(p).dividedBy(100));
}

/** Rounds `total × part / whole` to the cent (pro-rata reversal rule). Zero when whole is zero. */
export function proRata(total: string | Decimal, part: string | Decimal, whole: string | Decimal): Decimal {
  const t = typeof total === "string" ? money(total) : total;
  const p = typeof part === "string" ? money(part) : part;
  const w = typeof whole === "string" ? money(whole) : whole;
  if (w.isZero()) return new Money(0);
  return roundCents(t.times(p).dividedBy(w));
}

export function sumMoney(values: Iterable<string | Decimal>): Decimal {
  let total = new Money(0);
  for (const value of values) total = total.plus(typeof value === "string" ? money(value) : value);
  return total;
}

/** Exact comparison of two decimal strings ("10.0" equals "10.00"). */
export function sameAmount(a: string | Decimal, b: string | Decimal): boolean {
  const x = typeof a === "string" ? money(a) : a;
  const y = typeof b === "string" ? money(b) : b;
  return x.equals(y);
}

/** USD to coins at the service's peg of 10 coins per USD, kept to the cent of a coin. */
export const COINS_PER_USD = 10;
export function usdToCoins(usd: string | Decimal): Decimal {
  const u = typeof usd === "string" ? money(usd) : usd;
  return roundCents(u.times(COINS_PER_USD));
}
