import "server-only";
import { csvLine, plainText } from "./csv";
import {
  byCurrency,
  csvParts,
  type PayableItem,
  PaymentFileError,
  payoutAmount,
  validateItems,
  type WrittenFile,
} from "./types";
import { mapStatus, type PaymentOutcome, type ResultsReadout, readResultsCsv, resultFromCells } from "./results";

/**
 * PayPal Payouts Web upload file (developer.paypal.com, "Payouts Web" / "Use Web UI", send money):
 *
 * - One payout per row, columns left to right: recipient identifier, payment amount, currency, Customer ID, note,
 *   wallet. No header row (the documented sample file has none).
 * - Recipient identifier: the recipient's PayPal email address or PayPal PayerID (both documented for the PAYPAL
 *   wallet); a bank-account recipient cannot be paid through this file and is refused.
 * - Amount in the sender's currency format; we write the dot format ("100.50"), so these files are for a sender
 *   account that uses it (a comma-format account would need the documented quoted "100,50" form).
 * - Currency: three-letter ISO 4217; "Enter one currency type per payment file": items are grouped by currency
 *   and each currency gets its own file(s).
 * - "up to 5,000 payments per file": larger runs are split into numbered parts of at most 5,000 rows.
 * - Customer ID: a unique reference per payout row, echoed in PayPal's results as the item's Customer ID
 *   (sender_item_id in the Payouts API): our payment reference (≤ 30 characters of A-Z 0-9 -), unique in the file.
 * - Note: free text for the recipient; leading formula characters and line breaks are dropped (csv.ts).
 * - Wallet: PAYPAL.
 */
export const PAYPAL_MAX_ROWS = 5000;

export type PaypalFileOptions = { baseName: string; maxRows?: number };

export function writePaypalFiles(items: readonly PayableItem[], options: PaypalFileOptions): WrittenFile[] {
  const valid = validateItems(items);
  const refused = valid.filter((item) => item.method.kind === "bank");
  if (refused.length > 0) {
    throw new PaymentFileError(
      "PayPal pays only to an email address or a PayPal PayerID",
      refused.map((item) => ({
        reference: item.reference,
        message: "recipient has bank details, not a PayPal account",
      })),
    );
  }
  const maxRows = Math.min(options.maxRows ?? PAYPAL_MAX_ROWS, PAYPAL_MAX_ROWS);
  return byCurrency(valid).flatMap(([currency, group]) =>
    csvParts(`${options.baseName}-paypal-${currency}`, currency, group, maxRows, (rows) => {
      let content = "";
      for (const item of rows) {
        const m = item.method;
        const recipient = m.kind === "email" ? m.email : m.kind === "paypal_payer_id" ? m.payerId : "";
        content += csvLine([recipient, payoutAmount(item), currency, item.reference, plainText(item.note), "PAYPAL"]);
      }
      return content;
    }),
  );
}

/**
 * PayPal payouts results. Column names follow the payout item of the Payouts API (sender_item_id, transaction_id,
 * transaction_status, payout_item_fee, amount, currency, errors) and the labels the web report uses for them
 * ("Customer ID", "Transaction ID", "Status", "Fee", "Amount", "Currency", "Reason"); either spelling is read,
 * other columns are ignored. Item statuses (developer.paypal.com, payout item transaction_status):
 * SUCCESS → paid; PENDING, UNCLAIMED (not yet claimed, returned after 30 days), ONHOLD → pending;
 * FAILED, BLOCKED, DENIED → rejected; RETURNED, REFUNDED, REVERSED → returned.
 */
const PAYPAL_STATUS: Record<string, PaymentOutcome> = {
  SUCCESS: "paid",
  PENDING: "pending",
  UNCLAIMED: "pending",
  ONHOLD: "pending",
  FAILED: "rejected",
  BLOCKED: "rejected",
  DENIED: "rejected",
  RETURNED: "returned",
  REFUNDED: "returned",
  REVERSED: "returned",
};

export function readPaypalResults(text: string): ResultsReadout {
  return readResultsCsv(text, {
    aliases: {
      reference: ["Customer ID", "sender_item_id", "Sender Item ID", "Unique ID"],
      transactionId: ["Transaction ID", "transaction_id"],
      status: ["Status", "transaction_status", "Transaction Status"],
      amount: ["Amount", "amount", "Gross"],
      currency: ["Currency", "currency"],
      fee: ["Fee", "payout_item_fee", "Fee Amount"],
      reason: ["Reason", "errors", "Error"],
    },
    required: ["reference", "status"],
    row: (cells) => resultFromCells(cells, mapStatus(cells.status ?? "", PAYPAL_STATUS)),
  });
}
