import { describe, expect, it } from "vitest";
import type { PaymentStateRow } from "@/db/queries/payment-flow";
import { paymentStateProblems } from "./invariant";

const row = (over: Partial<PaymentStateRow>): PaymentStateRow => ({
  id: "s1",
  recipient_player_id: "7",
  state: "approved",
  payment_file_id: null,
  payable_usd: "60.00",
  available_usd: "60.00",
  live_items: 0,
  live_file_id: null,
  live_amount_usd: null,
  returned_usd: "60.00",
  returns: 1,
  ...over,
});

describe("a statement's payments and returns", () => {
  it("each return gives back the payable", () => {
    expect(paymentStateProblems(row({}))).toEqual([]);
    expect(paymentStateProblems(row({ returned_usd: "50.00" }))).toEqual([
      "statement s1: returned 50.00 over 1 return of 60.00",
    ]);
  });

  it("a payment returned, then held and carried forward whole, is no violation", () => {
    expect(paymentStateProblems(row({ state: "carried", payable_usd: "0.00" }))).toEqual([]);
    expect(paymentStateProblems(row({ state: "carried", payable_usd: "0.00", returned_usd: "0.00" }))).toEqual([
      "statement s1: returned 0.00 over 1 return of 60.00",
    ]);
  });
});
