import { electronicFormatIBAN, getCountrySpecifications, isQRIBAN, isValidBIC, isValidIBAN } from "ibantools";
import { z } from "zod";
import { parseInstant } from "@/core/time";
import { sepaHolderProblem } from "@/lib/payments/formats/sepa-text";
import { outsideSepaArea } from "@/lib/payments/sepa-area";

/** A tax form as the pages and the import's report say it: "W-8BEN, received 2026-03-01, expires 2029-12-31". */
export function taxFormText(form: string, receivedOn?: string | null, expiresOn?: string | null): string {
  return [form, receivedOn ? `received ${receivedOn}` : "", expiresOn ? `expires ${expiresOn}` : ""]
    .filter(Boolean)
    .join(", ");
}

/** The refusal of a tax form saved over one a colleague recorded since the page was drawn (the form tells it apart). */
export const TAX_FORM_CHANGED_ELSEWHERE =
  "The tax form on file was changed by someone else since this page was shown: look at it again before saving.";

/**
 * A payout profile's inputs. Every format check stops the field (`abort: true`) before a refinement that assumes
 * the format runs (an IBAN's checksum, a currency's existence, a date's calendar). Field names are those of the
 * recipient page's form; the CSV columns map onto them (lib/profiles/csv-columns.ts).
 */

export const PAYOUT_METHODS = ["paypal", "wise", "bank_transfer", "manual"] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];
export const PAYOUT_METHOD_LABELS: Record<PayoutMethod, string> = {
  paypal: "PayPal",
  wise: "Wise (by email)",
  bank_transfer: "Bank transfer (IBAN)",
  manual: "Manual (paid outside any file)",
};

export const TAX_FORMS = ["W-9", "W-8BEN", "W-8BEN-E", "none"] as const;
export type TaxForm = (typeof TAX_FORMS)[number];

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));
const COUNTRIES: ReadonlySet<string> = new Set(Object.keys(getCountrySpecifications()));

const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const required = (label: string) =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .min(1, { message: `${label} is required`, abort: true });

/** A payout email, in lower case: PayPal and Wise do not tell "Kim@" from "kim@", nor does a change of details. */
export const payoutEmailSchema = required("The email").pipe(
  z
    .email({ message: "must be an email address such as name@example.com", abort: true })
    .max(254, { message: "must be at most 254 characters", abort: true })
    .transform((v) => v.toLowerCase()),
);

/** PayPal's payer id: 13 letters and digits (the "PayerID" of a PayPal account). */
export const paypalPayerIdSchema = required("The PayPal payer id")
  .transform((v) => v.toUpperCase())
  .pipe(z.string().regex(/^[A-Z0-9]{13}$/, { message: "must be 13 letters and digits, such as 7QPAZ3HJ4KXVE" }));

export const currencySchema = required("The currency")
  .transform((v) => v.toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z]{3}$/, { message: "must be a three-letter ISO 4217 code such as EUR", abort: true })
      .refine((v) => CURRENCIES.has(v), { message: "is not an ISO 4217 currency code" }),
  );

export const ibanSchema = required("The IBAN")
  .transform((v) => v.replace(/[\s-]/g, "").toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/, {
        message: "must be an IBAN: two letters, two check digits and the account, such as DE89 3704 0044 0532 0130 00",
        abort: true,
      })
      .refine((v) => isValidIBAN(v), {
        message: "is not a valid IBAN (its check digits or length are wrong)",
        abort: true,
      })
      .transform((v) => electronicFormatIBAN(v) ?? v),
  );

export const bicSchema = required("The BIC")
  .transform((v) => v.replace(/\s/g, "").toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z0-9]{8}([A-Z0-9]{3})?$/, {
        message: "must be 8 or 11 letters and digits, such as COBADEFFXXX",
        abort: true,
      })
      // A refused BIC stops there: the country check below reads its letters.
      .refine((v) => isValidBIC(v), { message: "is not a valid BIC", abort: true }),
  );

export const countrySchema = required("The country")
  .transform((v) => v.toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z]{2}$/, { message: "must be a two-letter country code such as DE", abort: true })
      .refine((v) => COUNTRIES.has(v), { message: "is not a country code", abort: true }),
  );

const nameSchema = (label: string) =>
  required(label).pipe(z.string().max(140, { message: "must be at most 140 characters", abort: true }));

/**
 * What details entered from now on must also be, for a payment file to carry them (details stored before are read
 * with the schema above, as they were accepted): emails of at most 127 characters, the most PayPal's and Wise's files
 * take; names without control characters or direction overrides (a NUL, a right-to-left override); an IBAN that is no
 * QR-IBAN; a euro account holder with letters of the SEPA character set (transliterated), without which the whole SEPA
 * file would stop.
 */
const CONTROL_OR_OVERRIDE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;
const EMAIL_FIELDS = ["paypalEmail", "wiseEmail"] as const;
const NAME_FIELDS = ["accountHolder", "wiseName"] as const;
/**
 * A name a spreadsheet mangled before it was imported: "?" where a letter outside Windows-1252 was (saved as "CSV",
 * not "CSV UTF-8"), or UTF-8 read as Windows-1252 ("ZoÃ« MÃ¼ller" for "Zoë Müller"). A bank or Wise would be
 * sent the mangled name.
 */
const QUESTION_MARK = /\?/;
// The two lead bytes of the Latin-1 letters (é, ü, ñ, ç…) as Windows-1252 shows them, each followed by its second byte
// so shown. Only these: Ä and Å lead real Finnish and Swedish names, and a non-breaking space is read as a space first.
const UTF8_READ_AS_1252 = /[ÂÃ][\u00a1-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/u;

function checkPayableDetails(v: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const field of EMAIL_FIELDS) {
    const email = v[field];
    if (typeof email === "string" && email.length > 127)
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: "must be at most 127 characters (the most a payment file takes)",
      });
  }
  const refused = new Set<string>();
  for (const field of NAME_FIELDS) {
    const name = v[field];
    if (typeof name !== "string") continue;
    const message = CONTROL_OR_OVERRIDE.test(name)
      ? "must not hold control characters or direction overrides"
      : QUESTION_MARK.test(name)
        ? 'must not hold "?": no name does, but a file a spreadsheet saved as "CSV" rather than "CSV UTF-8" puts one ' +
          "where each letter it could not write was; write the name as it is"
        : UTF8_READ_AS_1252.test(name.replaceAll("\u00a0", " "))
          ? 'reads like a name mangled by a spreadsheet ("Ã«" for "ë"): the file was opened in the wrong encoding; ' +
            "write the name again (or open the original as UTF-8 and save it as CSV UTF-8)"
          : null;
    if (message) {
      ctx.addIssue({ code: "custom", path: [field], message });
      refused.add(field);
    }
  }
  // A Swiss or Liechtenstein QR-IBAN takes only QR-bill payments, with their reference: a transfer is refused (one
  // stored before this rule is left out of payment files, saying so).
  if (v.method === "bank_transfer" && typeof v.iban === "string" && isQRIBAN(v.iban))
    ctx.addIssue({
      code: "custom",
      path: ["iban"],
      message: "is a QR-IBAN, which takes only QR-bill payments: give the account's IBAN",
    });
  checkBankCountries(v, ctx);
  const holder = v.accountHolder;
  // One refusal per mistake: a name refused above is not also judged as SEPA would write it.
  if (v.method !== "bank_transfer" || v.currency !== "EUR" || typeof holder !== "string") return;
  if (refused.has("accountHolder")) return;
  // A SEPA transfer carries the name in the basic Latin set, at most 70 characters: said here, never cut unseen.
  const problem = sepaHolderProblem(holder);
  if (problem) ctx.addIssue({ code: "custom", path: ["accountHolder"], message: HOLDER_REFUSALS[problem] });
}

/** What entering a euro account's holder says of a name a transfer cannot carry whole (sepaHolderProblem). */
const HOLDER_REFUSALS: Record<NonNullable<ReturnType<typeof sepaHolderProblem>>, string> = {
  no_letters: "must hold Latin letters or digits for a euro transfer (write the name as the bank has it in Latin)",
  other_alphabet:
    "has letters of another alphabet, which a euro transfer cannot carry: write the whole name as the bank has it in " +
    "Latin letters",
  too_long: "must be at most 70 characters as a euro transfer writes it (the bank's short form of the name)",
};

/**
 * Countries whose banks hold accounts of another country's IBAN: Jersey, Guernsey and the Isle of Man use GB IBANs,
 * Åland FI IBANs, France's overseas departments and territories FR IBANs.
 */
const IBAN_COUNTRIES_OF_BANKS: Record<string, string> = {
  JE: "GB",
  GG: "GB",
  IM: "GB",
  AX: "FI",
  ...Object.fromEntries(["GF", "GP", "MQ", "RE", "YT", "PM", "BL", "MF", "NC", "PF", "WF"].map((c) => [c, "FR"])),
};

/**
 * An account's IBAN names the country of the bank that keeps it, which the BIC names too (its fifth and sixth
 * letters): a BIC of another country's bank would have the transfer sent to the wrong bank, which the masked details
 * a reviewer sees cannot show. A euro transfer (a SEPA file) reaches only accounts in the SEPA area. Checked when
 * details are entered, not on details already sealed.
 */
function checkBankCountries(v: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (v.method !== "bank_transfer" || typeof v.iban !== "string" || typeof v.bic !== "string") return;
  const ibanCountry = v.iban.slice(0, 2);
  const bicCountry = v.bic.slice(4, 6);
  const outside = v.currency === "EUR" ? outsideSepaArea(v.iban, v.bic) : null;
  if (bicCountry !== ibanCountry && IBAN_COUNTRIES_OF_BANKS[bicCountry] !== ibanCountry)
    ctx.addIssue({
      code: "custom",
      path: ["bic"],
      message:
        `is a bank in ${bicCountry}, and the IBAN an account in ${ibanCountry}: check both (the transfer would go to ` +
        "the bank the BIC names)",
    });
  else if (outside)
    ctx.addIssue({
      code: "custom",
      path: ["iban"],
      message:
        `is ${outside}, outside the SEPA area, which a euro transfer cannot reach: pay it in ` +
        "another currency or by another method",
    });
}

const paypalSchema = z
  .object({
    method: z.literal("paypal"),
    paypalEmail: z.preprocess(blankToUndefined, payoutEmailSchema.optional()),
    paypalPayerId: z.preprocess(blankToUndefined, paypalPayerIdSchema.optional()),
  })
  .refine((v) => (v.paypalEmail === undefined) !== (v.paypalPayerId === undefined), {
    message: "give the PayPal email or the PayPal payer id (one of them)",
    path: ["paypalEmail"],
  });
const wiseSchema = z.object({
  method: z.literal("wise"),
  wiseEmail: payoutEmailSchema,
  wiseName: nameSchema("The name on the Wise account"),
});
const bankSchema = z
  .object({
    method: z.literal("bank_transfer"),
    accountHolder: nameSchema("The account holder"),
    iban: ibanSchema,
    bic: bicSchema,
    bankCountry: countrySchema,
  })
  // The BIC's country letters (5 and 6) name the bank's country; an IBAN abroad is fine.
  .refine((v) => v.bic.slice(4, 6) === v.bankCountry, {
    message: "must be the country of the BIC (its fifth and sixth letters)",
    path: ["bankCountry"],
  });
const manualSchema = z.object({ method: z.literal("manual") });

/** What is sealed: the method and its details, and nothing else. */
export const payoutDetailsSchema = z.discriminatedUnion(
  "method",
  [paypalSchema, wiseSchema, bankSchema, manualSchema],
  { message: "must be one of paypal, wise, bank_transfer, manual" },
);
export type PayoutDetails = z.output<typeof payoutDetailsSchema>;

/** A change of payout details: the details and the payout currency. */
export const payoutDetailsInputSchema = z
  .object({ currency: currencySchema })
  .and(payoutDetailsSchema)
  .superRefine((v, ctx) => checkPayableDetails(v, ctx));
export type PayoutDetailsInput = z.output<typeof payoutDetailsInputSchema>;

const isoDate = (label: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { message: `${label} must be a date such as 2026-03-31`, abort: true })
      // A calendar check that cannot throw (2026-13-01 or 2026-02-30 is a field error, not a crash).
      .refine((v) => parseInstant(v) !== null, { message: `${label} is not a calendar date`, abort: true })
      .optional(),
  );

export const taxFormInputSchema = z
  .object({
    taxForm: z.enum(TAX_FORMS, { message: "must be one of W-9, W-8BEN, W-8BEN-E, none" }),
    taxFormReceivedOn: isoDate("The received date"),
    taxFormExpiresOn: isoDate("The expiry date"),
  })
  .refine((v) => v.taxForm === "none" || v.taxFormReceivedOn !== undefined, {
    message: "say when the form was received",
    path: ["taxFormReceivedOn"],
  })
  // A W-8 form is valid until the end of the third calendar year after it was signed: without its expiry it would
  // never be found expired.
  .refine((v) => !v.taxForm.startsWith("W-8") || v.taxFormExpiresOn !== undefined, {
    message: "must be given for a W-8 form (the last day of the third calendar year after signing)",
    path: ["taxFormExpiresOn"],
  })
  .refine((v) => !v.taxFormExpiresOn || !v.taxFormReceivedOn || v.taxFormExpiresOn > v.taxFormReceivedOn, {
    message: "must be after the received date",
    path: ["taxFormExpiresOn"],
  })
  .transform((v) =>
    v.taxForm === "none" ? { taxForm: v.taxForm, taxFormReceivedOn: undefined, taxFormExpiresOn: undefined } : v,
  );
export type TaxFormInput = z.output<typeof taxFormInputSchema>;

export const playerIdSchema = z
  .string()
  .trim()
  .regex(/^\d{1,15}$/, { message: "must be a player id (digits only)", abort: true })
  .transform(Number);

export const reviewDecisionSchema = z.object({
  changeId: z.uuid({ message: "must be a change id" }),
  decision: z.enum(["approve", "reject"], { message: "must be approve or reject" }),
  note: z.preprocess(
    blankToUndefined,
    z.string().trim().max(500, { message: "must be at most 500 characters" }).optional(),
  ),
});

export const requireTaxFormSchema = z.object({
  requireTaxForm: z.enum(["on", "off"], { message: "must be on or off" }),
});
