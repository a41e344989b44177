import { z } from "zod";
import type { NormalisedPaymentResult, PaymentResultOutcome } from "@/db/types";
import { type CsvRecord, CsvUnreadableError, headerIndex, readCsv } from "./csv";

/**
 * What every results reader returns: one normalised line per payment it could read, and why it could not read
 * the others.
 */

export type PaymentOutcome = PaymentResultOutcome;

/** One payment's result: reference, outcome, provider transaction id, amount, currency, fee, reason, raw status. */
export type PaymentResult = NormalisedPaymentResult & {
  /** The amount is what arrived after the provider's fee (a Wise target side), so the fee is added back to check it. */
  afterFee?: true;
};

export type UnreadableRow = { line: number; reason: string };

export type ResultsReadout = { results: PaymentResult[]; unreadable: UnreadableRow[] };

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? null : value));

/**
 * An amount in a results file: "12.34", "-0.35", "1,234.56" (commas only as thousands separators, dropped, and only
 * beside a decimal point); empty means none. A decimal comma ("12,34", as a report exported in a comma-decimal locale
 * writes it) is refused, never read as thousands: 12,34 is not 1234, 0,350 is not 350 (a group of thousands never
 * follows a leading 0), and 1,250 without a point, a fee of 1.25 written with three decimals as readily as 1250, is
 * refused as both.
 */
export const resultAmountSchema = z
  .string()
  .trim()
  .regex(/^$|^-?(\d{1,13}(\.\d{1,8})?|[1-9]\d{0,2}(,\d{3}){1,4}\.\d{1,8})$/, {
    message: "is not an amount (a decimal point and, if any, thousands commas: 1,234.56)",
  })
  .transform((value) => (value === "" ? null : value.replaceAll(",", "")));

/** A currency code, or null when the cell is empty. */
export const resultCurrencySchema = z
  .string()
  .trim()
  .toUpperCase()
  .pipe(
    z.union([z.literal("").transform(() => null), z.string().regex(/^[A-Z]{3}$/, { message: "is not a currency" })]),
  );

/**
 * A provider's transaction id, or null when the cell is empty: matched on (one result per id and filing), so kept
 * whole, at most 255 characters; a longer one is the line's error, not the import's.
 */
export const resultTransactionIdSchema = optionalText.pipe(
  z.string().max(255, { message: "transaction id over 255 characters" }).nullable(),
);

export const resultCells = {
  reference: z
    .string()
    .trim()
    .min(1, { message: "has no reference" })
    .max(35, { message: "reference over 35 characters" }),
  transactionId: resultTransactionIdSchema,
  amount: resultAmountSchema,
  currency: resultCurrencySchema,
  fee: resultAmountSchema,
  // Description only (a bank's rejection text): kept to its first 2,000 characters, never the line's error.
  reason: optionalText.transform((value) => (value === null ? null : value.slice(0, 2_000))),
};

const resultRowSchema = z.object(resultCells);

/** A fee as kept: what the provider charged, without the sign some reports give it. */
export const feeOf = (fee: string | null): string | null => (fee === null ? null : fee.replace(/^-/, ""));

type ColumnSpec = {
  /** Field name → accepted header names (first match wins). */
  aliases: Record<string, readonly string[]>;
  /** Fields whose column must be present for the file to be read at all. */
  required: readonly string[];
  /** Parses one row's cells (keyed by field, "" when the column is absent) into a result, or a reason. */
  row: (cells: Record<string, string>) => PaymentResult | string;
};

/** Reads a header-first CSV results file by column names; rows that cannot be read are listed with a reason. */
export function readResultsCsv(text: string, spec: ColumnSpec): ResultsReadout {
  let records: CsvRecord[];
  try {
    records = readCsv(text);
  } catch (error) {
    if (!(error instanceof CsvUnreadableError)) throw error;
    return { results: [], unreadable: [{ line: error.line, reason: `not a CSV file: ${error.reason}` }] };
  }
  const [header, ...rows] = records;
  if (!header) return { results: [], unreadable: [] };
  // A column named twice (a report edited by hand, two exports pasted together): which one holds the field is unknown.
  const known = new Set(Object.values(spec.aliases).flatMap((names) => names.map((n) => n.toLowerCase())));
  const twice = header.cells
    .map((name) => name.trim().toLowerCase())
    .find((name, i, all) => known.has(name) && all.indexOf(name) !== i);
  if (twice !== undefined)
    return {
      results: [],
      unreadable: [{ line: header.line, reason: `the header names the column "${twice}" twice: keep one` }],
    };
  const index = headerIndex(header.cells, spec.aliases);
  const missing = spec.required.filter((field) => !index.has(field));
  if (missing.length > 0) {
    // Named as the file's header would name them: the first accepted header, then the others it may go by.
    const named = missing.map((field) => {
      const [first, ...others] = spec.aliases[field] ?? [field];
      return others.length > 0 ? `${first} (or ${others.join(", ")})` : (first ?? field);
    });
    return { results: [], unreadable: [{ line: header.line, reason: `missing column(s): ${named.join(", ")}` }] };
  }
  const results: PaymentResult[] = [];
  const unreadable: UnreadableRow[] = [];
  for (const { line, cells } of rows) {
    if (cells.every((value) => value.trim() === "")) continue;
    // Cells past the header's last column: a comma or a line break out of place (rows of a file whose line ends
    // change run together), so which cell is which is unknown.
    if (cells.slice(header.cells.length).some((value) => value.trim() !== "")) {
      unreadable.push({
        line,
        reason: "has more cells than the header (a comma or line break out of place, or rows run together): not read",
      });
      continue;
    }
    const named: Record<string, string> = {};
    for (const field of Object.keys(spec.aliases)) {
      const at = index.get(field);
      named[field] = at === undefined ? "" : (cells[at] ?? "");
    }
    const parsed = spec.row(named);
    if (typeof parsed === "string") unreadable.push({ line, reason: parsed });
    else results.push(parsed);
  }
  return { results, unreadable };
}

/** Builds a zod-checked result from named cells; `outcome` is the provider's status already mapped (or a reason). */
export function resultFromCells(
  cells: Record<string, string>,
  status: { outcome: PaymentOutcome; raw: string } | string,
): PaymentResult | string {
  if (typeof status === "string") return status;
  const parsed = resultRowSchema.safeParse({
    reference: cells.reference ?? "",
    transactionId: cells.transactionId ?? "",
    amount: cells.amount ?? "",
    currency: cells.currency ?? "",
    fee: cells.fee ?? "",
    reason: cells.reason ?? "",
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${String(issue?.path[0] ?? "row")} ${issue?.message ?? "is not readable"}`;
  }
  const { reference, transactionId, amount, currency, fee, reason } = parsed.data;
  return {
    reference,
    outcome: status.outcome,
    providerTransactionId: transactionId,
    amount,
    currency,
    fee: feeOf(fee),
    reason,
    rawStatus: status.raw,
  };
}

/** Maps a status word through a table (case-insensitive); an unknown word is a reason, not a guess. */
export function mapStatus(
  raw: string,
  table: Record<string, PaymentOutcome>,
): { outcome: PaymentOutcome; raw: string } | string {
  const word = raw.trim();
  if (word === "") return "has no status";
  const outcome = table[word.toUpperCase()];
  return outcome ? { outcome, raw: word } : `status ${JSON.stringify(word.slice(0, 40))} is not one this reader knows`;
}
