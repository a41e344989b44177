import "server-only";
import { stringify } from "csv-stringify/sync";
import { CSV_WRITE, neutraliseText } from "@/lib/exports/csv";
import { type CsvRecord, readCsv } from "@/lib/payments/formats/csv";

/**
 * The CSV files of payout profiles. Import columns (a header row first; any order; blank cells mean "not given"):
 *
 * | column                 | meaning                                                                  |
 * | ---------------------- | ------------------------------------------------------------------------ |
 * | player_id              | the recipient's player id (required)                                     |
 * | method                 | paypal, wise, bank_transfer or manual; blank leaves the details as they are |
 * | currency               | ISO 4217 payout currency (required with a method)                        |
 * | paypal_email           | paypal: the PayPal email, or                                             |
 * | paypal_payer_id        | paypal: the PayPal payer id (one of the two)                             |
 * | wise_email, wise_name  | wise: the Wise account's email and name                                  |
 * | account_holder, iban, bic, bank_country | bank_transfer: holder, IBAN, BIC, the BIC's country     |
 * | tax_form               | W-9, W-8BEN, W-8BEN-E or none; blank leaves the tax form as it is         |
 * | tax_form_received_on, tax_form_expires_on | dates, 2026-03-31                                     |
 *
 * Exports carry the masked details only (the last four characters, or an email's first character and domain), never
 * full bank details.
 */
export const IMPORT_COLUMNS = {
  player_id: "playerId",
  method: "method",
  currency: "currency",
  paypal_email: "paypalEmail",
  paypal_payer_id: "paypalPayerId",
  wise_email: "wiseEmail",
  wise_name: "wiseName",
  account_holder: "accountHolder",
  iban: "iban",
  bic: "bic",
  bank_country: "bankCountry",
  tax_form: "taxForm",
  tax_form_received_on: "taxFormReceivedOn",
  tax_form_expires_on: "taxFormExpiresOn",
} as const;
export type ImportColumn = keyof typeof IMPORT_COLUMNS;
export const DETAIL_COLUMNS: readonly ImportColumn[] = [
  "currency",
  "paypal_email",
  "paypal_payer_id",
  "wise_email",
  "wise_name",
  "account_holder",
  "iban",
  "bic",
  "bank_country",
];
/**
 * The detail columns each method reads (besides the currency). A cell in another one is refused rather than dropped:
 * a row whose trailing cells were left off may hold an unquoted comma's shifted cells there, or another method's.
 */
export const METHOD_COLUMNS: Readonly<Record<string, readonly ImportColumn[]>> = {
  paypal: ["paypal_email", "paypal_payer_id"],
  wise: ["wise_email", "wise_name"],
  bank_transfer: ["account_holder", "iban", "bic", "bank_country"],
  manual: [],
};

export const EXPORT_COLUMNS = [
  "player_id",
  "method",
  "currency",
  "details_masked",
  "tax_form",
  "tax_form_received_on",
  "tax_form_expires_on",
  "pending_change_masked",
  "updated_at",
] as const;

/**
 * RFC 4180 as read for provider files (lib/payments/formats/csv.ts), strictly: a row with more cells than the header
 * (an unquoted comma in a name) or a stray quote refuses the file, and rows of empty cells are skipped.
 */
export function parseCsv(text: string): CsvRecord[] {
  return readCsv(text, { strict: true });
}

export function writeCsv(header: readonly string[], rows: readonly (readonly (string | null)[])[]): string {
  const cells = rows.map((r) => r.map((v) => (v === null ? "" : neutraliseText(v))));
  return stringify([header as string[], ...cells], CSV_WRITE);
}
