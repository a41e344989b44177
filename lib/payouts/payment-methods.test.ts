import { describe, expect, it } from "vitest";
import { paymentMethodLabel } from "./payment-methods";

describe("paymentMethodLabel", () => {
  it("names a method typed by hand and the file a payment was recorded from in words", () => {
    expect(paymentMethodLabel("bank_transfer")).toBe("Bank transfer");
    expect(paymentMethodLabel("paypal")).toBe("PayPal");
    expect(paymentMethodLabel("pain001")).toBe("Bank transfer (SEPA)");
    expect(paymentMethodLabel("generic")).toBe("Payment file");
    expect(paymentMethodLabel(null)).toBeNull();
  });
});
