import { describe, expect, it } from "vitest";
import { UUID } from "@/core/uuid";
import { returnPaymentSchema } from "@/lib/payments/schemas";

const ID = "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11";

describe("a UUID's text", () => {
  it("is 8-4-4-4-12 hexadecimal digits in either case, and nothing around them", () => {
    expect(UUID.test(ID)).toBe(true);
    expect(UUID.test(ID.toUpperCase())).toBe(true);
    for (const text of ["", "1234", `${ID} `, ` ${ID}`, `${ID}0`, ID.replace("0f", "0g"), ID.replaceAll("-", "")])
      expect(UUID.test(text), JSON.stringify(text)).toBe(false);
  });

  it("names a paid statement in the return dialog with the instant it was shown paid", () => {
    const reason = "bank returned it";
    const shown = returnPaymentSchema.parse({ payment: `${ID.toUpperCase()}@2026-11-30T10:00:00.000Z`, reason });
    expect(shown.payment).toEqual({ statementId: ID, paidShownAt: "2026-11-30T10:00:00.000Z" });
    for (const payment of [`${ID}`, `${ID}@yesterday`, `x${ID}@2026-11-30T10:00:00.000Z`])
      expect(returnPaymentSchema.safeParse({ payment, reason }).success, payment).toBe(false);
  });
});
