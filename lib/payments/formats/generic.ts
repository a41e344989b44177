import "server-only";
import { neutraliseText } from "@/lib/exports/csv";
import { csvLine } from "./csv";
import { mapStatus, type PaymentOutcome, type ResultsReadout, readResultsCsv, resultFromCells } from "./results";
import { byCurrency, type PayableItem, payoutAmount, validateItems, type WrittenFile, writtenFile } from "./types";

/**
 * The generic payment file, for paying by any other means (by hand in a bank's portal, another provider's import):
 * one header row, one row per payment, RFC 4180, CRLF, one file per payout currency, no row limit. Meant to be
 * opened in a spreadsheet, so it starts with a UTF-8 byte-order mark (without one Excel reads "Zoë" as "ZoÃ«"), every
 * text cell is neutralised against formulas (lib/exports/csv.ts: a leading apostrophe), amounts are plain decimals.
 *
 * Columns (README "Payment files"): reference, recipient_name, method (email | paypal_payer_id | bank), email,
 * paypal_payer_id, iban, bic, account_holder, country, amount_usd, currency, amount (in currency), note.
 */
export const GENERIC_COLUMNS = [
  "reference",
  "recipient_name",
  "method",
  "email",
  "paypal_payer_id",
  "iban",
  "bic",
  "account_holder",
  "country",
  "amount_usd",
  "currency",
  "amount",
  "note",
] as const;

export function writeGenericFiles(items: readonly PayableItem[], options: { baseName: string }): WrittenFile[] {
  const valid = validateItems(items);
  return byCurrency(valid).map(([currency, rows]) => {
    let content = `\uFEFF${csvLine(GENERIC_COLUMNS)}`;
    for (const item of rows) {
      const m = item.method;
      const text = [
        item.recipientName,
        m.kind,
        m.kind === "email" ? m.email : "",
        m.kind === "paypal_payer_id" ? m.payerId : "",
        m.kind === "bank" ? m.iban : "",
        m.kind === "bank" ? (m.bic ?? "") : "",
        m.kind === "bank" ? m.holder : "",
        m.kind === "bank" ? m.country : "",
      ].map(neutraliseText);
      content += csvLine([
        item.reference,
        ...text,
        item.amountUsd,
        currency,
        payoutAmount(item),
        neutraliseText(item.note),
      ]);
    }
    return writtenFile(rows, {
      fileName: `${options.baseName}-payments-${currency}.csv`,
      mediaType: "text/csv",
      part: 1,
      partCount: 1,
      currency,
      content,
    });
  });
}

/**
 * Generic results CSV (README "Payment files"): header row with reference, outcome (paid | pending | rejected |
 * returned), and optionally provider_transaction_id, amount, currency, fee, reason; other columns are ignored.
 */
const GENERIC_OUTCOME: Record<string, PaymentOutcome> = {
  PAID: "paid",
  PENDING: "pending",
  REJECTED: "rejected",
  RETURNED: "returned",
};

export function readGenericResults(text: string): ResultsReadout {
  return readResultsCsv(text, {
    aliases: {
      reference: ["reference"],
      transactionId: ["provider_transaction_id"],
      status: ["outcome"],
      amount: ["amount"],
      currency: ["currency"],
      fee: ["fee"],
      reason: ["reason"],
    },
    required: ["reference", "status"],
    row: (cells) => {
      const parsed = resultFromCells(cells, mapStatus(cells.status ?? "", GENERIC_OUTCOME));
      return typeof parsed === "string" ? parsed : { ...parsed, rawStatus: parsed.outcome };
    },
  });
}
