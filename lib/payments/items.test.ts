import { describe, expect, it } from "vitest";
import type { PayoutInstruction } from "@/lib/profiles/details";
import { type Candidate, itemFor } from "./items";

const candidate: Candidate = {
  statementId: "00000000-0000-4000-8000-000000000001",
  recipientPlayerId: 42,
  playerName: "Kim",
  payableUsd: "100.00",
  reference: "DEMO-202610-7K3M9Q2XWD4B",
  bars: [],
};

function bankInEur(iban: string, bic: string, bankCountry: string): PayoutInstruction {
  return {
    playerId: 42,
    method: "bank_transfer",
    currency: "EUR",
    details: { method: "bank_transfer", accountHolder: "Kim Doe", iban, bic, bankCountry },
  };
}

const sepaFile = { method: "sepa" as const, eurRate: "0.92", note: "Revenue share 2026-10" };

describe("a SEPA file's recipients", () => {
  it("pays an account in the SEPA area, converted at the file's rate", () => {
    const made = itemFor(candidate, bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE"), sepaFile);
    expect(made).toMatchObject({ ok: true, amountCurrency: "92.00" });
  });

  it("leaves out an account outside it, saying why and never what the account is", () => {
    const made = itemFor(candidate, bankInEur("BR1800360305000010009795493C1", "COBADEFFXXX", "DE"), sepaFile);
    expect(made).toEqual({ ok: false, reason: "the account's IBAN is from BR, outside the SEPA area" });
  });
});
