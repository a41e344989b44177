import type { PayableItem } from "@/lib/payments/formats/types";

/** Payable items for format tests: n items, reference R-000001…, amounts 1.01, 2.02, … (two decimals). */
export function items(n: number, make: (i: number) => Partial<PayableItem> = () => ({})): PayableItem[] {
  return Array.from({ length: n }, (_, index) => {
    const i = index + 1;
    const cents = (i % 99_999) + 1;
    return {
      reference: `R-${String(i).padStart(6, "0")}`,
      amountUsd: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`,
      currency: "USD",
      convertedAmount: null,
      recipientName: `Player ${i}`,
      method: { kind: "email", email: `player${i}@example.com` },
      note: `Revenue share October 2026`,
      ...make(i),
    };
  });
}
