import { stringify } from "csv-stringify/sync";
import { CSV_WRITE, neutraliseText } from "@/lib/exports/csv";

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
 * Exports carry the masked details only (the last four characters), never full bank details.
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

/** RFC 4180: quoted cells with doubled quotes, CRLF or LF line ends, a leading byte-order mark ignored. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === "") quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (quoted) throw new Error("the file ends inside a quoted cell");
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

export function writeCsv(header: readonly string[], rows: readonly (readonly (string | null)[])[]): string {
  const cells = rows.map((r) => r.map((v) => (v === null ? "" : neutraliseText(v))));
  return stringify([header as string[], ...cells], CSV_WRITE);
}
