import { Decimal } from "decimal.js";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { isValidBIC, isValidIBAN } from "ibantools";
import { describe, expect, it } from "vitest";
import { items } from "@/tests/payments/items";
import { type Pain001Settings, writePain001Files } from "./pain001";
import { PaymentFileError } from "./types";

/**
 * Read as ISO 20022 pain.001.001.09 is specified (with fast-xml-parser as the tokenizer only): Document in the
 * .09 namespace, CstmrCdtTrfInitn, GrpHdr with NbOfTxs = the number of CdtTrfTxInf and CtrlSum = the sum of their
 * InstdAmt, IBANs and BICs valid, EndToEndId unique and at most 35 characters, SEPA names in the SEPA set.
 */
const tokenizer = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  isArray: (name) => name === "CdtTrfTxInf",
});

type Tx = {
  PmtId: { EndToEndId: string };
  Amt: { InstdAmt: { "@Ccy": string; "#text": string } };
  CdtrAgt?: { FinInstnId: { BICFI: string } };
  Cdtr: { Nm: string; PstlAdr?: unknown };
  CdtrAcct: { Id: { IBAN: string } };
  RmtInf?: { Ustrd: string };
};

function readAsPain001(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = tokenizer.parse(xml).Document;
  expect(doc["@xmlns"]).toBe("urn:iso:std:iso:20022:tech:xsd:pain.001.001.09");
  const { GrpHdr, PmtInf } = doc.CstmrCdtTrfInitn;
  const txs = PmtInf.CdtTrfTxInf as Tx[];
  const sum = txs.reduce((total, tx) => total.plus(tx.Amt.InstdAmt["#text"]), new Decimal(0));
  expect(GrpHdr.NbOfTxs).toBe(String(txs.length));
  expect(PmtInf.NbOfTxs).toBe(String(txs.length));
  expect(new Decimal(GrpHdr.CtrlSum).equals(sum)).toBe(true);
  expect(PmtInf.CtrlSum).toBe(GrpHdr.CtrlSum);
  expect(GrpHdr.MsgId.length).toBeLessThanOrEqual(35);
  expect(GrpHdr.CreDtTm).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  expect(PmtInf.PmtMtd).toBe("TRF");
  expect(PmtInf.ReqdExctnDt.Dt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(isValidIBAN(PmtInf.DbtrAcct.Id.IBAN)).toBe(true);
  expect(isValidBIC(PmtInf.DbtrAgt.FinInstnId.BICFI)).toBe(true);
  const ids = new Set<string>();
  for (const tx of txs) {
    expect(tx.PmtId.EndToEndId.length).toBeLessThanOrEqual(35);
    ids.add(tx.PmtId.EndToEndId);
    expect(tx.Amt.InstdAmt["#text"]).toMatch(/^\d+\.\d{2}$/);
    expect(isValidIBAN(tx.CdtrAcct.Id.IBAN)).toBe(true);
    if (tx.CdtrAgt) expect(isValidBIC(tx.CdtrAgt.FinInstnId.BICFI)).toBe(true);
  }
  expect(ids.size).toBe(txs.length);
  return { GrpHdr, PmtInf, txs };
}

const SEPA_SET = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

const settings: Pain001Settings = {
  baseName: "demo-2026-10",
  messageId: "PD-20261122-0001",
  createdAt: new Date("2026-11-22T16:00:00.123Z"),
  executionDate: "2026-11-25",
  initiatingPartyName: "Payout Desk Ltd",
  debtor: { name: "Payout Desk Ltd", iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
};

const IBANS = ["DE89370400440532013000", "FR1420041010050500013M02606", "NL91ABNA0417164300", "AT611904300234573201"];

const bankItems = (n: number, currency = "EUR") =>
  items(n, (i) => ({
    currency,
    convertedAmount: currency === "USD" ? null : `${i}.05`,
    method: {
      kind: "bank",
      iban: IBANS[i % IBANS.length] as string,
      bic: i % 2 === 0 ? "COBADEFFXXX" : null,
      holder: `Holder ${i}`,
      country: "DE",
    },
  }));

describe("pain.001.001.09 credit transfer file", () => {
  it("writes a SEPA file whose counts and control sum equal its transfers", () => {
    const [file] = writePain001Files(bankItems(250), settings);
    const { GrpHdr, PmtInf, txs } = readAsPain001(file?.content ?? "");
    expect(txs).toHaveLength(250);
    expect(GrpHdr.MsgId).toBe("PD-20261122-0001-EUR");
    expect(GrpHdr.CreDtTm).toBe("2026-11-22T16:00:00Z");
    expect(PmtInf.PmtTpInf.SvcLvl.Cd).toBe("SEPA");
    expect(PmtInf.ChrgBr).toBe("SLEV");
    expect(PmtInf.ReqdExctnDt.Dt).toBe("2026-11-25");
    // 1.05 + 2.05 + … + 250.05 = 31,375 + 12.50
    expect(GrpHdr.CtrlSum).toBe("31387.50");
    expect(file?.totalAmount).toBe("31387.50");
    expect(txs[0]).toEqual({
      PmtId: { EndToEndId: "R-000001" },
      Amt: { InstdAmt: { "@Ccy": "EUR", "#text": "1.05" } },
      // No postal address: the bank's country is not the payee's, and an address needs a town since November 2026.
      Cdtr: { Nm: "Holder 1" },
      CdtrAcct: { Id: { IBAN: "FR1420041010050500013M02606" } },
      RmtInf: { Ustrd: "Revenue share October 2026" },
    });
    expect(txs[1]?.CdtrAgt?.FinInstnId.BICFI).toBe("COBADEFFXXX");
  });

  it("reduces SEPA names and text to the SEPA character set", () => {
    const list = bankItems(1).map((item) => ({
      ...item,
      method: { ...item.method, holder: "Zoë Łukasz-Øster & Søn <Ltd>" } as typeof item.method,
      note: "Prämie für Oktober — danke! 🎮 //x",
    }));
    const { txs } = readAsPain001(writePain001Files(list, settings)[0]?.content ?? "");
    expect(txs[0]?.Cdtr.Nm).toBe("Zoe Lukasz-Oster + Son Ltd");
    expect(txs[0]?.RmtInf?.Ustrd).toBe("Pramie fur Oktober danke /x");
    expect(txs[0]?.Cdtr.Nm).toMatch(SEPA_SET);
  });

  it("names the payer's town and country, which a transfer to an account outside the EEA needs", () => {
    const uk = bankItems(2).map((item, i) =>
      i === 0 ? { ...item, method: { ...item.method, iban: "GB82WEST12345698765432" } as typeof item.method } : item,
    );
    // None set: the file is not written with a transfer a bank would refuse.
    try {
      writePain001Files(uk, settings);
      expect.unreachable("a transfer outside the EEA was written without the payer's address");
    } catch (error) {
      expect(error).toBeInstanceOf(PaymentFileError);
      expect((error as PaymentFileError).problems).toEqual([
        { reference: "R-000001", message: expect.stringMatching(/^an account in GB, outside the EEA: .* address/) },
      ]);
    }
    const addressed = { ...settings, debtor: { ...settings.debtor, address: { town: "Zürich", country: "CH" } } };
    const [file] = writePain001Files(uk, addressed);
    const { PmtInf, txs } = readAsPain001(file?.content ?? "");
    expect(txs).toHaveLength(2);
    expect(PmtInf.Dbtr).toEqual({ Nm: "Payout Desk Ltd", PstlAdr: { TwnNm: "Zurich", Ctry: "CH" } });
    // In the schema's order: the name, then the address, the town before the country.
    const order =
      /<Dbtr>\s*<Nm>[^<]*<\/Nm>\s*<PstlAdr>\s*<TwnNm>Zurich<\/TwnNm>\s*<Ctry>CH<\/Ctry>\s*<\/PstlAdr>\s*<\/Dbtr>/;
    expect(file?.content).toMatch(order);
    // Within the EEA, none is needed, and none is written unless set.
    const [inEea] = writePain001Files(bankItems(2), settings);
    expect(readAsPain001(inEea?.content ?? "").PmtInf.Dbtr).toEqual({ Nm: "Payout Desk Ltd" });
    // A payer account outside the EEA names its address in every transfer, to accounts within the EEA too.
    const fromUk = { ...settings, debtor: { ...settings.debtor, iban: "GB29NWBK60161331926819", bic: "NWBKGB2L" } };
    try {
      writePain001Files(bankItems(2), fromUk);
      expect.unreachable("a transfer from outside the EEA was written without the payer's address");
    } catch (error) {
      expect(error).toBeInstanceOf(PaymentFileError);
      const problems = (error as PaymentFileError).problems;
      expect(problems).toHaveLength(2);
      for (const problem of problems)
        expect(problem.message).toMatch(/^the payer's account is in GB, outside the EEA: .* \(PAYOUT_DESK_PAYER_TOWN/);
    }
    const london = { ...fromUk, debtor: { ...fromUk.debtor, address: { town: "London", country: "GB" } } };
    const [fromLondon] = writePain001Files(bankItems(2), london);
    expect(readAsPain001(fromLondon?.content ?? "").PmtInf.Dbtr).toEqual({
      Nm: "Payout Desk Ltd",
      PstlAdr: { TwnNm: "London", Ctry: "GB" },
    });
  });

  it("escapes XML in a non-SEPA currency, where the text is kept", () => {
    const list = bankItems(2, "USD").map((item) => ({
      ...item,
      method: { ...item.method, holder: `A & B <C> "D" 'E'` } as typeof item.method,
    }));
    const [file] = writePain001Files(list, settings);
    expect(file?.content).toContain("A &amp; B &lt;C&gt;");
    const { PmtInf, txs } = readAsPain001(file?.content ?? "");
    expect(PmtInf.PmtTpInf).toBeUndefined();
    expect(PmtInf.ChrgBr).toBe("SHAR");
    expect(txs[0]?.Cdtr.Nm).toBe(`A & B <C> "D" 'E'`);
    expect(txs[0]?.Amt.InstdAmt).toEqual({ "@Ccy": "USD", "#text": "0.02" });
  });

  it("refuses items it cannot pay by transfer, and bad debtor settings", () => {
    const badIban = bankItems(1).map((item) => ({
      ...item,
      method: { ...item.method, iban: "DE89370400440532013001" } as typeof item.method,
    }));
    expect(() => writePain001Files(badIban, settings)).toThrow(PaymentFileError);
    expect(() => writePain001Files(items(1), settings)).toThrow(/cannot be paid by credit transfer/);
    const onlyCjk = bankItems(1).map((item) => ({
      ...item,
      method: { ...item.method, holder: "王小明" } as typeof item.method,
    }));
    expect(() => writePain001Files(onlyCjk, settings)).toThrow(PaymentFileError);
    // One euro over SEPA's largest transfer refuses the file, naming the item; at the limit it is written.
    const amounted = (amount: string) => bankItems(1).map((item) => ({ ...item, convertedAmount: amount }));
    expect(() => writePain001Files(amounted("1000000000.00"), settings)).toThrow(PaymentFileError);
    expect(writePain001Files(amounted("999999999.99"), settings)).toHaveLength(1);
    expect(() =>
      writePain001Files(bankItems(1), { ...settings, debtor: { ...settings.debtor, bic: "NOTABIC" } }),
    ).toThrow();
  });
});
