import "server-only";
import { z } from "zod";
import { countOf } from "@/lib/format";
import { Money } from "@/core/money";

/**
 * What every payment-file writer takes: the payable items of one file run, validated here once. Amounts are
 * two-decimal strings; `convertedAmount` is the amount in `currency` (lib/payments/fx.ts) and is given exactly
 * when the payout currency is not USD.
 */

const amountSchema = z
  .string()
  .regex(/^\d{1,13}\.\d{2}$/, { message: "must be an amount with two decimals, such as 12.30", abort: true })
  .refine((value) => new Money(value).gt(0), { message: "must be greater than 0" });

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, { message: "must be an ISO 4217 code such as EUR" });

export const paymentMethodSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("email"), email: z.email().max(127) }),
  /** PayPal's PayerID: 13 upper-case letters and digits. */
  z.object({ kind: z.literal("paypal_payer_id"), payerId: z.string().regex(/^[A-Z0-9]{13}$/) }),
  z.object({
    kind: z.literal("bank"),
    iban: z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/, { message: "must be an IBAN without spaces" }),
    bic: z
      .string()
      .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, { message: "must be a BIC of 8 or 11 characters" })
      .nullable(),
    holder: z.string().trim().min(1).max(140),
    country: z.string().regex(/^[A-Z]{2}$/, { message: "must be an ISO 3166 country code such as DE" }),
  }),
]);

export const payableItemSchema = z
  .object({
    reference: z.string().regex(/^[A-Z0-9-]{1,30}$/, { message: "must be 1-30 characters of A-Z, 0-9 and -" }),
    amountUsd: amountSchema,
    currency: currencySchema,
    convertedAmount: amountSchema.nullable(),
    recipientName: z.string().trim().min(1).max(140),
    method: paymentMethodSchema,
    note: z.string().max(140),
  })
  .refine((item) => (item.currency === "USD") === (item.convertedAmount === null), {
    message: "a converted amount is given exactly when the payout currency is not USD",
    path: ["convertedAmount"],
  });

export type PaymentMethod = z.infer<typeof paymentMethodSchema>;
export type PayableItem = z.infer<typeof payableItemSchema>;

/** One file ready to hand to a provider (several parts when a provider limits rows per file). */
export type WrittenFile = {
  fileName: string;
  mediaType: "text/csv" | "application/xml";
  /** 1-based; `partCount` files make up the run for this currency. */
  part: number;
  partCount: number;
  currency: string;
  rowCount: number;
  /** Sum of the items' USD amounts. */
  totalUsd: string;
  /**
   * Sum of the items' amounts in `currency`: the amounts as written (the control sum), or for Wise, whose file sends
   * USD for Wise to convert, the desk's conversion at the file's rate.
   */
  totalAmount: string;
  /** The items' references, in file order. */
  references: string[];
  content: string;
};

export class PaymentFileError extends Error {
  constructor(
    message: string,
    readonly problems: { reference: string | null; message: string }[],
  ) {
    super(message);
  }
}

/** Validates every item; throws one PaymentFileError listing each problem (and duplicate references). */
export function validateItems(items: readonly unknown[]): PayableItem[] {
  const problems: { reference: string | null; message: string }[] = [];
  const valid: PayableItem[] = [];
  const seen = new Set<string>();
  for (const raw of items) {
    const parsed = payableItemSchema.safeParse(raw);
    if (!parsed.success) {
      const reference =
        typeof (raw as { reference?: unknown })?.reference === "string"
          ? (raw as { reference: string }).reference
          : null;
      for (const issue of parsed.error.issues)
        problems.push({ reference, message: `${issue.path.join(".")}: ${issue.message}` });
      continue;
    }
    if (seen.has(parsed.data.reference)) {
      problems.push({ reference: parsed.data.reference, message: "reference appears twice" });
      continue;
    }
    seen.add(parsed.data.reference);
    valid.push(parsed.data);
  }
  if (problems.length > 0) throw new PaymentFileError(`${countOf(problems.length, "item problem")}`, problems);
  return valid;
}

/** The amount a file carries for an item: the converted amount, or the USD amount for USD payouts. */
export function payoutAmount(item: PayableItem): string {
  return item.convertedAmount ?? item.amountUsd;
}

export function sumAmounts(values: Iterable<string>): string {
  let total = new Money(0);
  for (const value of values) total = total.plus(new Money(value));
  return total.toFixed(2);
}

/** Splits into parts of at most `max`, keeping order. */
export function inParts<T>(rows: readonly T[], max: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < rows.length; i += max) parts.push(rows.slice(i, i + max));
  return parts;
}

/** Groups by payout currency, currencies in alphabetical order, items in their given order. */
export function byCurrency(items: readonly PayableItem[]): [string, PayableItem[]][] {
  const groups = new Map<string, PayableItem[]>();
  for (const item of items) {
    const group = groups.get(item.currency);
    if (group) group.push(item);
    else groups.set(item.currency, [item]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** Describes one written file of `rows` (totals and references). */
export function writtenFile(
  rows: readonly PayableItem[],
  file: Pick<WrittenFile, "fileName" | "mediaType" | "part" | "partCount" | "currency" | "content">,
): WrittenFile {
  return {
    ...file,
    rowCount: rows.length,
    totalUsd: sumAmounts(rows.map((item) => item.amountUsd)),
    totalAmount: sumAmounts(rows.map(payoutAmount)),
    references: rows.map((item) => item.reference),
  };
}

/**
 * One currency's items as numbered CSV parts of at most `maxRows` rows: `<stem>-part<n>of<count>.csv`, each part's
 * content from `render`.
 */
export function csvParts(
  stem: string,
  currency: string,
  items: readonly PayableItem[],
  maxRows: number,
  render: (rows: readonly PayableItem[]) => string,
): WrittenFile[] {
  const parts = inParts(items, maxRows);
  return parts.map((rows, i) =>
    writtenFile(rows, {
      fileName: `${stem}-part${i + 1}of${parts.length}.csv`,
      mediaType: "text/csv",
      part: i + 1,
      partCount: parts.length,
      currency,
      content: render(rows),
    }),
  );
}
