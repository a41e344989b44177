import { z } from "zod";

export const ACCOUNTING_ACCOUNTS = ["expense", "payable", "clearing", "returns"] as const;
export type AccountingAccountKey = (typeof ACCOUNTING_ACCOUNTS)[number];

export const accountingAccountSchema = z.enum(ACCOUNTING_ACCOUNTS, {
  message: "must be one of expense, payable, clearing, returns",
});

/** Printable text without control characters: it goes into an import file a ledger reads. */
const PRINTABLE = /^[^\p{Cc}]+$/u;

/**
 * A first character a spreadsheet runs as a formula, or the apostrophe that marks a cell kept from it. The ledgers'
 * import files carry a mapped account or tax rate as typed (an apostrophe put before it, which the ledger would take
 * as part of the name, would match nothing), so such a name is refused when it is mapped.
 */
const FORMULA_START = /^[=+\-@']/;
const FORMULA_MESSAGE = "must not start with =, +, -, @ or ' (a spreadsheet would run it as a formula or hide the ')";

export const accountCodeSchema = z
  .string({ message: "is required" })
  .trim()
  .min(1, { message: "is required", abort: true })
  .max(150, { message: "must be at most 150 characters", abort: true })
  .regex(PRINTABLE, { message: "must not hold line breaks or control characters", abort: true })
  .refine((value) => !FORMULA_START.test(value), { message: FORMULA_MESSAGE });

/** Empty means none. */
export const taxRateNameSchema = z
  .string()
  .trim()
  .max(100, { message: "must be at most 100 characters", abort: true })
  .regex(/^[^\p{Cc}]*$/u, { message: "must not hold line breaks or control characters", abort: true })
  .refine((value) => !FORMULA_START.test(value), { message: FORMULA_MESSAGE })
  .transform((value) => value || null);

export const mapAccountSchema = z.object({
  account: accountingAccountSchema,
  code: accountCodeSchema,
  taxRate: taxRateNameSchema.optional().transform((v) => v ?? null),
});

/** A mapping as a page showed it ("" for none): a save from a page drawn before another admin's is refused. */
const drawnText = (max: number) =>
  z
    .string()
    .max(max, { message: "is not a mapping this page could show" })
    .transform((v) => v || null);

export const mapAccountFormSchema = mapAccountSchema.extend({
  drawnCode: drawnText(150),
  drawnTaxRate: drawnText(100),
});

/** Why a window is closed or reopened: kept with it and in the audit log. */
export const closingReasonSchema = z
  .string({ message: "is required" })
  .trim()
  .min(3, { message: "must say why, in a few words", abort: true })
  .max(1000, { message: "must be at most 1000 characters" });

export const calendarYearSchema = z
  .string({ message: "is required" })
  .trim()
  .regex(/^\d{4}$/, { message: "must be a year such as 2026", abort: true })
  .transform(Number)
  .pipe(z.number().int().min(2000, { message: "must be 2000 or later" }).max(2999, { message: "must be before 3000" }));

export const thresholdAmountSchema = z
  .string({ message: "is required" })
  .trim()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, { message: "must be an amount in USD with at most two decimals, such as 600.00" });
