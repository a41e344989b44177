import Decimal from "decimal.js";
import { z } from "zod";
import { parseServiceInstant } from "@/core/time";
import { decimalStringSchema } from "@/lib/money";

/** The pieces the service's response schemas are made of (see schemas.ts). */

/** "Decimal amounts and coin amounts are strings." */
export const amountSchema = decimalStringSchema;

/** ISO 8601 as the service writes it; kept as text so a stored figure is exactly what the service sent. */
export const timestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/, {
    message: "must be an ISO 8601 timestamp",
    abort: true,
  })
  // On the calendar and the clock: 2026-02-30 or hour 25 is refused with the field's path, never read later.
  // (A year before 1000, which nothing here reads as an instant, is kept as text: a placeholder such as 0001-01-01.)
  .refine((value) => /^0\d{3}-/.test(value) || parseServiceInstant(value) !== null, {
    message: "is not a date and time on the calendar",
  });

/**
 * An id the spec gives no type for (transaction_id, mint_order_id, refund_key, event_id, order_id, dispute_id): text,
 * or a whole number read as its text, so a service that sends numbers is read, not refused.
 */
export const idTextSchema = z.union([
  z.string(),
  z
    .number()
    .int()
    .transform((value) => String(value)),
]);

/**
 * A percentage (10.00). The spec does not say string or number; a number is turned into its decimal text, written out
 * in full (1e-7 is 0.0000001) without a float's noise, then checked as a string is.
 */
export const percentSchema = z.union([
  decimalStringSchema,
  z
    .number()
    // A float's noise (0.30000000000000004, 33.333333333333336) is rounded off: 15 significant digits, 12 decimals.
    .transform((value) => new Decimal(value).toSignificantDigits(15).toDecimalPlaces(12).toFixed())
    .pipe(decimalStringSchema),
]);

/**
 * A named value only shown to people (a receipt's funding shape, an agreement's status): the spec's values, or one it
 * adds later, shown as the service wrote it rather than failing the whole answer (a refund made would read as
 * unreadable). Values the desk decides on stay closed enums.
 */
export function shownValueSchema<const T extends readonly [string, ...string[]]>(known: T) {
  return z.union([z.enum(known), z.string().min(1).max(64)]);
}

export const intSchema = z.number().int();
export const countSchema = z.number().int().nonnegative();

/** "settled_by_invo: false is repeated on totals, on each recipient, on each renewal line, ..." */
export const notSettledByServiceSchema = z.literal(false);

/**
 * A recipient's share of a subscription's revenue, as every route that names one states it (the subscription, the
 * attribution report's current share, a refund's attribution); each adds its own figures.
 */
export const revenueShareSchema = z.object({
  recipient_player_id: intSchema,
  percent: percentSchema,
  settled_by_invo: notSettledByServiceSchema,
});

export const paginationSchema = z.object({
  total_count: countSchema,
  limit: countSchema,
  offset: countSchema,
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** Issue paths and codes only: a message built from them never quotes a value from the body. */
export function formatIssues(error: z.ZodError, prefix?: string): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== "").join(".");
    return `${path || "(root)"}: ${issue.code}`;
  });
}
