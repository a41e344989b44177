import "server-only";
import type { PayoutDetails } from "./schemas";

/** The last four characters of a value, the rest as dots: all a person ever sees of payout details. */
export function lastFour(value: string): string {
  return `••••${value.slice(-4)}`;
}

/**
 * An email address as a person may see it: its first character and its domain ("k•••@example.org"), enough to tell
 * a changed address from the one before (its last four would be the domain's ending, the same for most addresses),
 * never the whole mailbox: a mailbox of one or two characters shows none of them.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return lastFour(email);
  return `${at < 3 ? "" : email.slice(0, 1)}•••${email.slice(at)}`;
}

/**
 * The display string kept unsealed beside the sealed details: the method and what tells them apart without giving
 * them (the last four of an IBAN, BIC or payer id; an email's first character and domain).
 */
export function maskDetails(details: PayoutDetails): string {
  switch (details.method) {
    case "paypal":
      return details.paypalPayerId
        ? `PayPal payer id ${lastFour(details.paypalPayerId)}`
        : `PayPal ${maskEmail(details.paypalEmail ?? "")}`;
    case "wise":
      return `Wise ${maskEmail(details.wiseEmail)}`;
    case "bank_transfer":
      return `IBAN ${lastFour(details.iban)}, BIC ${lastFour(details.bic)}`;
    case "manual":
      return "Manual, paid outside any file";
  }
}

const FIELD_WORDS: Record<string, string> = {
  method: "method",
  currency: "currency",
  iban: "IBAN",
  bic: "BIC",
  accountHolder: "account holder",
  bankCountry: "bank country",
  paypalEmail: "PayPal email",
  paypalPayerId: "PayPal payer id",
  wiseEmail: "Wise email",
  wiseName: "Wise account name",
};

/** What a change of details alters, by field ("changes: account holder, IBAN"), or null when not known. */
export function changedFieldsText(fields: readonly string[] | null): string | null {
  if (!fields || fields.length === 0) return null;
  return `changes: ${fields.map((field) => FIELD_WORDS[field] ?? field).join(", ")}`;
}
