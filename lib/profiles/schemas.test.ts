import { describe, expect, it } from "vitest";
import { payoutDetailsInputSchema, taxFormInputSchema } from "./schemas";

describe("taxFormInputSchema", () => {
  it("refuses a date that is not on the calendar as a field error, never by throwing", () => {
    for (const day of ["2026-13-01", "2026-00-10", "2026-01-32", "2026-02-30"]) {
      const parsed = taxFormInputSchema.safeParse({ taxForm: "W-9", taxFormReceivedOn: day });
      expect(parsed.success, day).toBe(false);
      expect(
        parsed.error?.issues.map((i) => [i.path.join("."), i.message]),
        day,
      ).toEqual([["taxFormReceivedOn", "The received date is not a calendar date"]]);
    }
    expect(taxFormInputSchema.parse({ taxForm: "W-9", taxFormReceivedOn: "2028-02-29" })).toMatchObject({
      taxFormReceivedOn: "2028-02-29",
    });
  });
});

/** Each refusal as "path: message". */
const refusals = (parsed: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  parsed.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);

describe("one refusal per mistake", () => {
  it("a wrong BIC is refused alone, without blaming the country its letters were compared with", () => {
    const bank = { currency: "EUR", method: "bank_transfer", accountHolder: "Ada Lovelace", bankCountry: "DE" };
    const parsed = payoutDetailsInputSchema.safeParse({ ...bank, iban: "DE89370400440532013000", bic: "COBAZZFF" });
    expect(refusals(parsed)).toEqual(["bic: is not a valid BIC"]);
    const iban = payoutDetailsInputSchema.safeParse({ ...bank, iban: "DE89370400440532013001", bic: "COBADEFF" });
    expect(refusals(iban)).toEqual(["iban: is not a valid IBAN (its check digits or length are wrong)"]);
  });

  it("a received date off the calendar is refused alone, without comparing it with the expiry", () => {
    const parsed = taxFormInputSchema.safeParse({
      taxForm: "W-9",
      taxFormReceivedOn: "2026-13-01",
      taxFormExpiresOn: "2026-12-31",
    });
    expect(refusals(parsed)).toEqual(["taxFormReceivedOn: The received date is not a calendar date"]);
  });
});
