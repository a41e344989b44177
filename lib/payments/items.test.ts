import { describe, expect, it } from "vitest";
import type { PayoutInstruction } from "@/lib/profiles/details";
import { writeGenericFiles } from "./formats/generic";
import { writePaypalFiles } from "./formats/paypal";
import type { PayableItem } from "./formats/types";
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
    expect(made).toEqual({ ok: false, reason: "an account in BR, outside the SEPA area" });
  });

  it("pays an account outside the EEA only with the payer's address set, which such a transfer names", () => {
    const uk = bankInEur("GB82WEST12345698765432", "WESTGB22XXX", "GB");
    expect(itemFor(candidate, uk, sepaFile)).toEqual({
      ok: false,
      reason:
        "an account in GB, outside the EEA: a euro transfer there names the payer's address, and none is set " +
        "(PAYOUT_DESK_PAYER_TOWN and _COUNTRY)",
    });
    const frankfurt = { iban: "DE89370400440532013000", address: null };
    expect(itemFor(candidate, uk, { ...sepaFile, payer: frankfurt })).toMatchObject({ ok: false });
    const addressed = { ...sepaFile, payer: { ...frankfurt, address: { town: "Frankfurt am Main" } } };
    expect(itemFor(candidate, uk, addressed)).toMatchObject({ ok: true, amountCurrency: "92.00" });
    // From a payer account outside the EEA, every transfer names the address, to accounts within the EEA too.
    const de = bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE");
    const london = { iban: "GB29NWBK60161331926819", address: null };
    expect(itemFor(candidate, de, { ...sepaFile, payer: london })).toEqual({
      ok: false,
      reason:
        "the payer's account is in GB, outside the EEA: a euro transfer from there names the payer's address, and " +
        "none is set (PAYOUT_DESK_PAYER_TOWN and _COUNTRY)",
    });
    const fromLondon = { ...sepaFile, payer: { ...london, address: { town: "London" } } };
    expect(itemFor(candidate, de, fromLondon)).toMatchObject({ ok: true });
    // Within the EEA, none is needed.
    expect(itemFor(candidate, bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE"), sepaFile)).toMatchObject({
      ok: true,
    });
  });

  it("leaves out details saved before a file's rule, saying what to mend, so everyone else's file is made", () => {
    // A holder written in a script SEPA cannot carry (saved before such holders were refused at entry).
    const cyrillic = bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE");
    if (cyrillic.details.method === "bank_transfer") cyrillic.details.accountHolder = "Иван Петров";
    expect(itemFor(candidate, cyrillic, sepaFile)).toEqual({
      ok: false,
      reason: "account holder has no letters of the SEPA character set: save the payout details again on the profile",
    });
    // Letters the transfer would leave out, or a name it would cut at 70 characters ("ß" is written "ss").
    const mixed = bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE");
    if (mixed.details.method === "bank_transfer") mixed.details.accountHolder = "Ivan Петров";
    expect(itemFor(candidate, mixed, sepaFile)).toEqual({
      ok: false,
      reason:
        "account holder has letters of another alphabet, which a euro transfer would leave out: save the payout " +
        "details again on the profile",
    });
    const long = bankInEur("DE89370400440532013000", "COBADEFFXXX", "DE");
    if (long.details.method === "bank_transfer") long.details.accountHolder = `Gro${"ß".repeat(34)} GmbH`;
    expect(itemFor(candidate, long, sepaFile)).toEqual({
      ok: false,
      reason:
        "account holder is over 70 characters as a euro transfer writes it, which would cut it: save the payout " +
        "details again on the profile",
    });
    // A mailbox longer than PayPal's file holds (127 characters).
    const longMailbox: PayoutInstruction = {
      playerId: 42,
      method: "paypal",
      currency: "USD",
      details: { method: "paypal", paypalEmail: `${"k".repeat(60)}@${"e".repeat(70)}.com` },
    };
    const made = itemFor(candidate, longMailbox, { method: "paypal", eurRate: null, note: "" });
    expect(made).toEqual({
      ok: false,
      reason: "the stored email is not accepted in a payment file: save the payout details again on the profile",
    });
    expect(JSON.stringify(made)).not.toContain("kkkk");
  });
});

describe("a recipient paid by PayPal, named by the service", () => {
  const byPaypal: PayoutInstruction = {
    playerId: 42,
    method: "paypal",
    currency: "USD",
    details: { method: "paypal", paypalEmail: "kim@example.com" },
  };
  const paypalFile = { method: "paypal" as const, eurRate: null, note: "Revenue share 2026-10" };
  const named = (playerName: string | null): PayableItem => {
    const made = itemFor({ ...candidate, playerName }, byPaypal, paypalFile);
    if (!made.ok) throw new Error(made.reason);
    return made.item;
  };
  /** The generic file's rows as cells: quoted cells may hold commas and doubled quotes, and no line breaks here. */
  const rows = (text: string) =>
    text
      .replace(/^\uFEFF/, "")
      .split("\r\n")
      .filter((line) => line !== "")
      .map((line) => Array.from(line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g), (m) => m[1] ?? "").slice(0, -1));

  it("is named by number when the service gives no name or only spaces, and cut to 140 characters when longer", () => {
    const long = `${"Ä".repeat(139)}\u{1F600}tail`;
    const items = [named(""), named("   "), named(null), named(long), named(` ${"x".repeat(200)}`), named(" Kim ")];
    expect(items.map((item) => item.recipientName)).toEqual([
      "Player 42",
      "Player 42",
      "Player 42",
      "Ä".repeat(139),
      "x".repeat(140),
      "Kim",
    ]);
    // One such name no longer stops the file of everyone: both files are written, every recipient in them.
    const references = items.map((item, i) => ({ ...item, reference: `DEMO-202610-${i}` }));
    expect(writePaypalFiles(references, { baseName: "payouts" })[0]?.rowCount).toBe(6);
    const [header, ...body] = rows(writeGenericFiles(references, { baseName: "payouts" })[0]?.content ?? "");
    const nameAt = header?.indexOf("recipient_name") ?? -1;
    expect(nameAt).toBeGreaterThan(-1);
    expect(body.map((row) => row[nameAt])).toEqual(references.map((item) => item.recipientName));
  });
});
