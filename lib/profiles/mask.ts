import type { PayoutDetails } from "./schemas";

/** The last four characters of a value, the rest as dots: all a person ever sees of payout details. */
export function lastFour(value: string): string {
  return `••••${value.slice(-4)}`;
}

/** The display string kept unsealed beside the sealed details: the method and the last four of what identifies it. */
export function maskDetails(details: PayoutDetails): string {
  switch (details.method) {
    case "paypal":
      return details.paypalPayerId
        ? `PayPal payer id ${lastFour(details.paypalPayerId)}`
        : `PayPal ${lastFour(details.paypalEmail ?? "")}`;
    case "wise":
      return `Wise ${lastFour(details.wiseEmail)}`;
    case "bank_transfer":
      return `IBAN ${lastFour(details.iban)}, BIC ${lastFour(details.bic)}`;
    case "manual":
      return "Manual, paid outside any file";
  }
}
