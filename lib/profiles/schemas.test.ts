import { describe, expect, it } from "vitest";
import { payoutDetailsInputSchema, payoutDetailsSchema, taxFormInputSchema } from "./schemas";

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
    // A Swiss QR-IBAN (bank id 30000 to 31999) takes QR-bill payments only; the account's own IBAN passes.
    const swiss = { ...bank, currency: "CHF", bic: "UBSWCHZH80A", bankCountry: "CH" };
    const qr = payoutDetailsInputSchema.safeParse({ ...swiss, iban: "CH4431999123000889012" });
    expect(refusals(qr)).toEqual(["iban: is a QR-IBAN, which takes only QR-bill payments: give the account's IBAN"]);
    expect(payoutDetailsInputSchema.safeParse({ ...swiss, iban: "CH9300762011623852957" }).success).toBe(true);
  });

  it("a received date off the calendar is refused alone, without comparing it with the expiry", () => {
    const parsed = taxFormInputSchema.safeParse({
      taxForm: "W-9",
      taxFormReceivedOn: "2026-13-01",
      taxFormExpiresOn: "2026-12-31",
    });
    expect(refusals(parsed)).toEqual(["taxFormReceivedOn: The received date is not a calendar date"]);
  });

  it("a name over 140 characters is refused for its length alone, not also for what a euro transfer writes", () => {
    const parsed = payoutDetailsInputSchema.safeParse({
      currency: "EUR",
      method: "bank_transfer",
      accountHolder: "A".repeat(150),
      bankCountry: "DE",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
    });
    expect(refusals(parsed)).toEqual(["accountHolder: must be at most 140 characters"]);
  });
});

describe("the bank an account is at", () => {
  const eur = { currency: "EUR", method: "bank_transfer", accountHolder: "Ada Lovelace" };

  it("is the one the IBAN's country and the BIC's both name", () => {
    const elsewhere = { ...eur, iban: "DE89370400440532013000", bic: "BNPAFRPPXXX", bankCountry: "FR" };
    expect(refusals(payoutDetailsInputSchema.safeParse(elsewhere))).toEqual([
      "bic: is a bank in FR, and the IBAN an account in DE: check both " +
        "(the transfer would go to the bank the BIC names)",
    ]);
    // Jersey's banks keep accounts of GB IBANs.
    const jersey = { ...eur, currency: "GBP", iban: "GB82WEST12345698765432", bic: "HSBCJESHXXX", bankCountry: "JE" };
    expect(payoutDetailsInputSchema.safeParse(jersey).success).toBe(true);
  });

  it("is in the SEPA area for a euro transfer", () => {
    const turkey = { iban: "TR330006100519786457841326", bic: "TGBATRISXXX", bankCountry: "TR" };
    expect(refusals(payoutDetailsInputSchema.safeParse({ ...eur, ...turkey }))).toEqual([
      "iban: is an account in TR, outside the SEPA area, which a euro transfer cannot reach: pay it in another " +
        "currency or by another method",
    ]);
    expect(payoutDetailsInputSchema.safeParse({ ...eur, ...turkey, currency: "USD" }).success).toBe(true);
  });
});

describe("details a payment file can carry", () => {
  const bank = { currency: "EUR", method: "bank_transfer", iban: "DE89370400440532013000", bic: "COBADEFFXXX" };

  it("a euro account holder needs letters a SEPA file can carry; another currency takes any script", () => {
    const latin = payoutDetailsInputSchema.safeParse({ ...bank, accountHolder: "Zoë Łukasz", bankCountry: "DE" });
    expect(latin.success).toBe(true);
    const han = payoutDetailsInputSchema.safeParse({ ...bank, accountHolder: "王小明", bankCountry: "DE" });
    expect(refusals(han)?.[0]).toMatch(/^accountHolder: must hold Latin letters or digits for a euro transfer/);
    expect(refusals(han)).toHaveLength(1);
    const yen = payoutDetailsInputSchema.safeParse({
      ...bank,
      currency: "JPY",
      accountHolder: "王小明",
      bankCountry: "DE",
    });
    expect(yen.success).toBe(true);
  });

  it("a euro account holder is refused where SEPA would drop letters or cut the name, not sent changed unseen", () => {
    const holder = (accountHolder: string) =>
      refusals(payoutDetailsInputSchema.safeParse({ ...bank, accountHolder, bankCountry: "DE" })) ?? [];
    expect(holder("Иван Smith")).toEqual([
      "accountHolder: has letters of another alphabet, which a euro transfer cannot carry: write the whole name as " +
        "the bank has it in Latin letters",
    ]);
    const long = "Maximilian Alexander Friedrich von und zu Hohenzollern-Brandenburg Schmidt";
    expect(long.length).toBeGreaterThan(70);
    expect(holder(long)).toEqual([
      "accountHolder: must be at most 70 characters as a euro transfer writes it (the bank's short form of the name)",
    ]);
    // Accents, ß and Ø are spelled in Latin: nothing lost.
    expect(holder("Zoë Weiß-Øster")).toEqual([]);
    expect(holder("Guðrún Jónsdóttir")).toEqual([]);
    expect(holder("Yıldız Kaya")).toEqual([]);
  });

  it("refuses control characters and direction overrides in a name, and an email longer than 127", () => {
    for (const name of ["Ada\u0000Lovelace", "Ada \u202eecalevoL"]) {
      const parsed = payoutDetailsInputSchema.safeParse({ ...bank, accountHolder: name, bankCountry: "DE" });
      expect(refusals(parsed), JSON.stringify(name)).toEqual([
        "accountHolder: must not hold control characters or direction overrides",
      ]);
    }
    const email = `${"a".repeat(116)}@example.com`;
    expect(email.length).toBe(128);
    const wise = payoutDetailsInputSchema.safeParse({
      currency: "EUR",
      method: "wise",
      wiseName: "Ada",
      wiseEmail: email,
    });
    expect(refusals(wise)).toEqual(["wiseEmail: must be at most 127 characters (the most a payment file takes)"]);
  });

  it("refuses a name a spreadsheet mangled: letters lost to ? or UTF-8 read as Windows-1252; real names pass", () => {
    const holder = (accountHolder: string) =>
      refusals(payoutDetailsInputSchema.safeParse({ ...bank, accountHolder, bankCountry: "DE" })) ?? [];
    const wise = (wiseName: string) =>
      refusals(payoutDetailsInputSchema.safeParse({ currency: "USD", method: "wise", wiseName, wiseEmail: "a@b.co" }));
    // "Иван Petrov" and "Łukasz Nowak" as Excel's "CSV" (Windows-1252) writes them.
    for (const name of ["???? Petrov", "?ukasz Nowak"]) {
      expect(holder(name), name).toEqual([expect.stringMatching(/^accountHolder: must not hold "\?": no name does/)]);
      expect(wise(name), name).toEqual([expect.stringMatching(/^wiseName: must not hold "\?": no name does/)]);
    }
    // "Zoë Müller", "José Núñez" and "Jörg Öberg" read as Windows-1252, then saved as UTF-8.
    for (const name of ["ZoÃ« MÃ¼ller", "JosÃ© NÃºÃ±ez", "JÃ¶rg Ã–berg"])
      expect(holder(name), name).toEqual([expect.stringMatching(/^accountHolder: reads like a name mangled/)]);
    // Real names, some as banks write them: capitals, a double-barrelled dash, a non-breaking space pasted in.
    for (const name of [
      "Zoë Müller",
      "Ågren Åsa",
      "Ärzte Öl",
      "Ñandú Pérez",
      "Łukasz Nowak",
      "MÄKELÄ\u00a0MATTI",
      "MÄKELÄ–VIRTANEN",
      "LÃ\u00a0VAN AN",
      "JOÃO–SILVA",
    ])
      expect(holder(name), name).toEqual([]);
  });

  it("reads details stored before these checks as they were accepted; a joiner in a Persian name stays allowed", () => {
    const stored = { method: "wise", wiseName: "Ada", wiseEmail: `${"a".repeat(116)}@example.com` };
    expect(payoutDetailsSchema.safeParse(stored).success).toBe(true);
    const persian = {
      currency: "EUR",
      method: "wise",
      wiseName: "\u0645\u06cc\u200c\u0631\u0627",
      wiseEmail: "m@example.com",
    };
    expect(payoutDetailsInputSchema.safeParse(persian).success).toBe(true);
  });
});
