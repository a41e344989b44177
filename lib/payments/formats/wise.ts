import "server-only";
import { csvLine, plainText } from "./csv";
import { mapStatus, type PaymentOutcome, type ResultsReadout, readResultsCsv, resultFromCells } from "./results";
import { byCurrency, csvParts, type PayableItem, PaymentFileError, validateItems, type WrittenFile } from "./types";

/**
 * Wise batch payment file (wise.com help, "What's a batch payment template?", "How do I fill in my batch
 * template?", and the batch payments guide):
 *
 * - A CSV whose first row is the template's header; the column names must not be changed. We write the
 *   documented template columns: name, recipientEmail, paymentReference, receiverType, amountCurrency, amount,
 *   sourceCurrency, targetCurrency, and the bank columns IBAN, BIC, addressCountryCode only when a row of the file
 *   pays a bank account (the "Send to bank accounts" template); email-only files are the "Send by email" template.
 * - "up to 1,000 transfers with a single file": larger runs are split into numbered parts of at most 1,000 rows.
 * - name: the recipient's name as on their bank account (the account holder for bank rows).
 * - receiverType: PERSON (recipients are players, private individuals).
 * - sourceCurrency USD (the balance we pay from), targetCurrency the payout currency, amountCurrency "source" with
 *   amount in USD: a fixed-source payment, Wise converts at its rate and deducts its fee. Each target currency gets
 *   its own file(s), so a file's totals are in one currency.
 * - paymentReference: our reference; a PayPal PayerID recipient cannot be paid through Wise and is refused.
 */
export const WISE_MAX_ROWS = 1000;

/**
 * The longest paymentReference Wise passes on for a target currency (wise.com help, tips for paying invoices: USD 10
 * characters, sent with the ACH or Swift transfer; EUR 35; GBP 18). The desk pays Wise rows in USD or EUR.
 */
export const WISE_REFERENCE_LIMITS: Readonly<Record<string, number>> = { USD: 10, EUR: 35, GBP: 18 };

/**
 * The reference a Wise row sends: the payment reference when it fits the currency's limit, else the first characters
 * of its code (lib/payments/reference.ts; 10 of Crockford base-32, 50 bits), which the file item keeps so that Wise's
 * results, naming what was sent, are matched back.
 */
export function wiseReference(reference: string, currency: string): string {
  const limit = WISE_REFERENCE_LIMITS[currency] ?? 35;
  if (reference.length <= limit) return reference;
  const code = reference.slice(reference.lastIndexOf("-") + 1);
  return code.slice(0, limit);
}

const BASE_HEADER = [
  "name",
  "recipientEmail",
  "paymentReference",
  "receiverType",
  "amountCurrency",
  "amount",
  "sourceCurrency",
  "targetCurrency",
] as const;
const BANK_HEADER = ["IBAN", "BIC", "addressCountryCode"] as const;

export type WiseFileOptions = { baseName: string; maxRows?: number };

export function writeWiseFiles(items: readonly PayableItem[], options: WiseFileOptions): WrittenFile[] {
  const valid = validateItems(items);
  const refused = valid.filter((item) => item.method.kind === "paypal_payer_id");
  if (refused.length > 0) {
    throw new PaymentFileError(
      "Wise pays only to an email address or a bank account",
      refused.map((item) => ({ reference: item.reference, message: "recipient has only a PayPal PayerID" })),
    );
  }
  const maxRows = Math.min(options.maxRows ?? WISE_MAX_ROWS, WISE_MAX_ROWS);
  // Fixed-source payments: the file's amounts are in USD (its `totalUsd`); what arrives in `currency` is Wise's
  // conversion, so the total in `currency` is the desk's own at the file's rate, as each item stores it.
  return byCurrency(valid).flatMap(([currency, group]) =>
    csvParts(`${options.baseName}-wise-${currency}`, currency, group, maxRows, (rows) => {
      const withBank = rows.some((item) => item.method.kind === "bank");
      let content = csvLine(withBank ? [...BASE_HEADER, ...BANK_HEADER] : [...BASE_HEADER]);
      for (const item of rows) content += csvLine(wiseRow(item, withBank));
      return content;
    }),
  );
}

function wiseRow(item: PayableItem, withBank: boolean): string[] {
  const method = item.method;
  const name = plainText(method.kind === "bank" ? method.holder : item.recipientName);
  const email = method.kind === "email" ? method.email : "";
  const row = [name, email, item.reference, "PERSON", "source", item.amountUsd, "USD", item.currency];
  if (withBank) {
    if (method.kind === "bank") row.push(method.iban, method.bic ?? "", method.country);
    else row.push("", "", "");
  }
  return row;
}

/**
 * Wise results: a transfers CSV read by column names. Wise documents no fixed column set for a batch's results,
 * so the reader takes the transfer resource's field names (Wise API "transfer": id, reference, status,
 * sourceValue, sourceCurrency, targetValue / targetAmount, targetCurrency, fee) and their common report labels, and
 * ignores everything else. A row's amount is its source side when it gives the source amount (what the file sent,
 * fee included: our payments are fixed-source, in USD when the row names no source currency), otherwise its target
 * side, which is after Wise's fee (and conversion).
 * Transfer statuses (Wise API, transfer statuses): outgoing_payment_sent → paid; incoming_payment_waiting,
 * incoming_payment_initiated, processing, funds_converted, waiting_recipient_input_to_proceed, unknown → pending;
 * cancelled → rejected; funds_refunded, charged_back → returned. bounced_back → pending: Wise's path for a payment that
 * comes back is sent ⇒ bounced back ⇒ processing ⇒ cancelled ⇒ funds refunded, and a transfer may roll back to an
 * earlier state, so only the refund ends it (a payment recorded stays recorded until then).
 */
const WISE_STATUS: Record<string, PaymentOutcome> = {
  OUTGOING_PAYMENT_SENT: "paid",
  INCOMING_PAYMENT_WAITING: "pending",
  INCOMING_PAYMENT_INITIATED: "pending",
  PROCESSING: "pending",
  FUNDS_CONVERTED: "pending",
  WAITING_RECIPIENT_INPUT_TO_PROCEED: "pending",
  UNKNOWN: "pending",
  CANCELLED: "rejected",
  FUNDS_REFUNDED: "returned",
  BOUNCED_BACK: "pending",
  CHARGED_BACK: "returned",
};

export function readWiseResults(text: string): ResultsReadout {
  return readResultsCsv(text, {
    aliases: {
      reference: ["paymentReference", "reference", "Reference", "Payment reference"],
      transactionId: ["id", "transferId", "Transfer ID", "TransferWise ID"],
      status: ["status", "Status"],
      sourceAmount: ["sourceValue", "sourceAmount", "Source amount"],
      sourceCurrency: ["sourceCurrency", "Source currency"],
      amount: ["targetValue", "targetAmount", "Target amount", "amount", "Amount"],
      currency: ["targetCurrency", "Target currency", "currency", "Currency"],
      fee: ["fee", "Fee", "Fee amount"],
      reason: ["reason", "errorMessage", "Reason"],
    },
    required: ["reference", "status"],
    row: (cells) => {
      const source = (cells.sourceAmount ?? "").trim() !== "";
      const result = resultFromCells(source ? sourceSide(cells) : cells, mapStatus(cells.status ?? "", WISE_STATUS));
      return typeof result === "string" || source ? result : { ...result, afterFee: true };
    },
  });
}

/**
 * The row's amount and currency from its source side: what the desk's file sent, fee included (Wise deducts its fee
 * from it). The desk's Wise files send USD, so a source amount without its currency is USD.
 */
function sourceSide(cells: Record<string, string>): Record<string, string> {
  const currency = (cells.sourceCurrency ?? "").trim();
  return { ...cells, amount: cells.sourceAmount ?? "", currency: currency === "" ? "USD" : currency };
}
