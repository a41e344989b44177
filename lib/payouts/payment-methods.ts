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
