import { z } from "zod";
import { IMPORT_LIMITS } from "@/lib/import-limits";
import { money } from "@/lib/money";
import { parseInstant } from "@/lib/time";
import { fxRateSchema } from "./fx";
import { UUID_SOURCE } from "@/core/uuid";

/** Shared input schemas of payment files and results (the server actions and the CLI reuse them). */

export const FILE_METHODS = ["paypal", "wise", "sepa", "generic"] as const;
export type FileMethod = (typeof FILE_METHODS)[number];
export const FILE_METHOD_LABELS: Record<FileMethod, string> = {
  paypal: "PayPal Payouts (CSV)",
  wise: "Wise batch (CSV)",
  sepa: "SEPA credit transfer (pain.001 XML)",
  generic: "Generic CSV",
};

export const RESULT_FORMATS = ["paypal", "wise", "pain002", "generic"] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];
export const RESULT_FORMAT_LABELS: Record<ResultFormat, string> = {
  paypal: "PayPal payouts report (CSV)",
  wise: "Wise batch results (CSV)",
  pain002: "Bank status report (pain.002 XML)",
  generic: "Generic results (CSV)",
};

const blank = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

export const isoDateSchema = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date such as 2026-11-25", abort: true })
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    { message: "is not a date", abort: true },
  );

/**
 * EUR for one USD, within bounds wide enough for any rate seen since the euro began (about 0.63 to 1.21): a rate typed
 * ten times too large or small (9.2345 or 0.092345 for 0.92345) would pay every recipient that much more or less, and
 * the file's control sum would agree with it.
 */
const eurRateSchema = fxRateSchema.refine((value) => money(value).gte("0.5") && money(value).lte("1.5"), {
  message: "must be EUR for one USD, between 0.5 and 1.5 (such as 0.92): check the rate",
});

const utcDay = (offsetDays: number): string =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * The day the provider is asked to pay: not past (a day's slack for a person whose day is behind UTC's), at most 90
 * days ahead. A year typed wrong would otherwise date every payment of the file, once its results are imported without
 * a paid-on day, before the file existed or far ahead.
 */
const executionDateSchema = isoDateSchema
  .refine((v) => v >= utcDay(-1), { message: "cannot be in the past" })
  .refine((v) => v <= utcDay(90), { message: "must be within the next 90 days" });

/**
 * The day a SEPA file asks the bank to pay, of the day given and UTC's `today`: the day before today (the slack the
 * form gives a person whose day is behind UTC's; no earlier day is taken) is asked as today, as the file records it
 * and its confirmation says (some banks refuse a day gone by).
 */
export function sepaExecutionDate(given: string, today: string): string {
  const dayBefore = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  return given === dayBefore ? today : given;
}

/**
 * The execution date a payment file's form proposes: UTC's `today`, which the page is drawn with, or the person's own
 * day where it is later (just after their midnight, east of UTC), which a bank there would otherwise be asked to pay
 * on as a day gone by. `timeZone`: the browser's own when not given.
 */
export function proposedExecutionDate(today: string, now: Date, timeZone?: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const local = `${parts.year}-${parts.month}-${parts.day}`;
  return isoDateSchema.safeParse(local).success && local > today ? local : today;
}

export const createPaymentFileSchema = z
  .object({
    batchId: z.uuid({ message: "is not a batch id" }),
    method: z.enum(FILE_METHODS, { message: "must be one of paypal, wise, sepa, generic" }),
    eurRate: z.preprocess(blank, eurRateSchema.optional()),
    rateSource: z.preprocess(
      blank,
      z.string().trim().max(200, { message: "must be at most 200 characters" }).optional(),
    ),
    executionDate: z.preprocess(blank, executionDateSchema.optional()),
  })
  // On the field left empty: a source typed without its rate is the rate's to fill.
  .superRefine((v, ctx) => {
    if (v.method === "sepa" && v.eurRate === undefined && v.rateSource === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "a SEPA file pays in EUR: give the USD→EUR rate and where it comes from",
        path: ["eurRate"],
      });
      return;
    }
    if ((v.eurRate === undefined) === (v.rateSource === undefined)) return;
    ctx.addIssue({
      code: "custom",
      message: "give the rate and where it comes from together",
      path: [v.eurRate === undefined ? "eurRate" : "rateSource"],
    });
  });
export type CreatePaymentFileInput = z.output<typeof createPaymentFileSchema>;

export const cancelPaymentFileSchema = z.object({
  fileId: z.uuid({ message: "is not a file id" }),
  reason: z.string().trim().min(5, { message: "say why (at least 5 characters)" }).max(500),
  /** The downloads of the file the page showed: one since refuses the cancel. */
  downloadsSeen: z
    .string()
    .regex(/^\d{1,9}$/, { message: "must be a count" })
    .transform(Number)
    .optional(),
  /**
   * For a file the provider answered for some of its payments (it has the file): the person confirmed with the provider
   * that it will not pay the rest, which go back to approved.
   */
  restUnpaid: z.literal("confirmed", { message: "confirm that the provider will not pay the rest" }).optional(),
});

export const importResultsSchema = z.object({
  batchId: z.uuid({ message: "is not a batch id" }),
  format: z.enum(RESULT_FORMATS, { message: "must be one of paypal, wise, pain002, generic" }),
  /** At most 20 MB of text. */
  text: z
    .string()
    .min(1, { message: "the file is empty" })
    .max(IMPORT_LIMITS.results.chars, { message: IMPORT_LIMITS.results.message }),
  /** The day the provider sent the money (UTC); when blank, each file's execution date once come, else today. */
  paidOn: z.preprocess(
    blank,
    isoDateSchema
      .refine((v) => v <= utcDay(1), {
        message: "cannot be in the future",
      })
      .optional(),
  ),
});

/** A paid statement as the return dialog showed it: its id and when it was recorded paid ("<id>@<instant>"). */
const PAYMENT_SHOWN = new RegExp(`^${UUID_SOURCE}@\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$`, "i");

export const returnPaymentSchema = z.object({
  payment: z
    .string()
    .trim()
    .min(1, { message: "must be chosen", abort: true })
    .regex(PAYMENT_SHOWN, { message: "is not a paid statement shown on this page", abort: true })
    .refine((v) => parseInstant(v.slice(v.indexOf("@") + 1)) !== null, {
      message: "is not a paid statement shown on this page",
      abort: true,
    })
    .transform((v) => ({
      statementId: v.slice(0, v.indexOf("@")).toLowerCase(),
      paidShownAt: v.slice(v.indexOf("@") + 1),
    })),
  reason: z.string().trim().min(5, { message: "say why the payment is undone (at least 5 characters)" }).max(500),
  /** Ticked: "paid" was recorded by mistake, the money never left (no "Payment returned" flag, nothing to returns). */
  neverSent: z.literal("yes", { message: "is ticked or not" }).optional(),
});
