export const PAYMENT_METHODS = ["bank_transfer", "paypal", "wise", "payoneer", "check", "other"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PAYMENT_METHOD_LABELS: Record<PaymentMethod, string> = {
  bank_transfer: "Bank transfer",
  paypal: "PayPal",
  wise: "Wise",
  payoneer: "Payoneer",
  check: "Check",
  other: "Other",
};

/** What a payment recorded from a provider's results names as its method: the payment file's format. */
const FILE_METHOD_LABELS: Record<string, string> = {
  pain001: "Bank transfer (SEPA)",
  generic: "Payment file",
};

/** A payment's method as a person reads it: typed by hand (PAYMENT_METHODS) or the file that paid it. */
export function paymentMethodLabel(method: string | null): string | null {
  if (!method) return null;
  return PAYMENT_METHOD_LABELS[method as PaymentMethod] ?? FILE_METHOD_LABELS[method] ?? method;
}
