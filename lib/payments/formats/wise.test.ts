import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { items } from "@/tests/payments/items";
import { readWiseResults, writeWiseFiles, wiseReference } from "./wise";

/**
 * Read as Wise documents its batch template: a header row whose names are the template's (name, recipientEmail,
 * paymentReference, receiverType, amountCurrency, amount, sourceCurrency, targetCurrency, and bank fields for bank
 * recipients), then up to 1,000 transfers.
 */
const TEMPLATE = [
  "name",
  "recipientEmail",
  "paymentReference",
  "receiverType",
  "amountCurrency",
  "amount",
  "sourceCurrency",
  "targetCurrency",
];

function readAsWise(content: string): Record<string, string>[] {
  const [header, ...rows] = parse(content) as string[][];
  expect(header?.slice(0, TEMPLATE.length)).toEqual(TEMPLATE);
  expect(rows.length).toBeLessThanOrEqual(1000);
  return rows.map((cells) => {
    expect(cells).toHaveLength(header?.length ?? 0);
    const row = Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""]));
    expect(row.receiverType).toMatch(/^(PERSON|BUSINESS)$/);
    expect(row.amount).toMatch(/^\d+\.\d{2}$/);
    expect(row.sourceCurrency).toBe("USD");
    expect(row.amountCurrency).toBe("source");
    expect(row.paymentReference).not.toBe("");
    return row;
  });
}

const bank = (i: number) => ({
  currency: "EUR",
  convertedAmount: "5.00",
  recipientName: `Player ${i}`,
  method: {
    kind: "bank" as const,
    iban: "DE89370400440532013000",
    bic: "COBADEFFXXX",
    holder: `Holder ${i}`,
    country: "DE",
  },
});

describe("Wise batch file", () => {
  it("splits 2,500 transfers into parts of at most 1,000 under the template header", () => {
    const files = writeWiseFiles(items(2500), { baseName: "demo" });
    expect(files.map((f) => [f.fileName, f.rowCount])).toEqual([
      ["demo-wise-USD-part1of3.csv", 1000],
      ["demo-wise-USD-part2of3.csv", 1000],
      ["demo-wise-USD-part3of3.csv", 500],
    ]);
    const references = new Set<string>();
    for (const file of files) {
      const rows = readAsWise(file.content);
      expect(Object.keys(rows[0] ?? {})).toEqual(TEMPLATE);
      for (const row of rows) references.add(row.paymentReference ?? "");
    }
    expect(references.size).toBe(2500);
  });

  it("adds the bank columns only to a file that pays bank accounts, and sends USD for Wise to convert", () => {
    const list = items(3, (i) =>
      i === 2 ? bank(i) : i === 3 ? { ...bank(i), method: { kind: "email", email: "p3@example.com" } } : {},
    );
    const [eur, usd] = writeWiseFiles(list, { baseName: "b" });
    const eurRows = readAsWise(eur?.content ?? "");
    expect(eurRows).toEqual([
      {
        name: "Holder 2",
        recipientEmail: "",
        paymentReference: "R-000002",
        receiverType: "PERSON",
        amountCurrency: "source",
        amount: "0.03",
        sourceCurrency: "USD",
        targetCurrency: "EUR",
        IBAN: "DE89370400440532013000",
        BIC: "COBADEFFXXX",
        addressCountryCode: "DE",
      },
      {
        name: "Player 3",
        recipientEmail: "p3@example.com",
        paymentReference: "R-000003",
        receiverType: "PERSON",
        amountCurrency: "source",
        amount: "0.04",
        sourceCurrency: "USD",
        targetCurrency: "EUR",
        IBAN: "",
        BIC: "",
        addressCountryCode: "",
      },
    ]);
    expect(eur?.totalUsd).toBe("0.07");
    // The file sends USD; its total in EUR is the desk's conversion, as each item carries it.
    expect(eur?.totalAmount).toBe("10.00");
    expect(Object.keys(readAsWise(usd?.content ?? "")[0] ?? {})).toEqual(TEMPLATE);
  });

  it("refuses a recipient known only by a PayPal PayerID", () => {
    const list = items(1, () => ({ method: { kind: "paypal_payer_id", payerId: "ABCDEFGHJK123" } }));
    expect(() => writeWiseFiles(list, { baseName: "b" })).toThrow(/Wise pays only/);
  });
});

describe("Wise results", () => {
  it("maps transfer statuses, reads fees and ignores unknown columns; lists bad rows", () => {
    const text =
      "\uFEFFid,status,sourceValue,targetValue,targetCurrency,reference,fee,createdOn\r\n" +
      "4711,outgoing_payment_sent,10.00,9.20,EUR,R-1,0.41,2026-11-20\r\n" +
      "4712,processing,10.00,9.20,EUR,R-2,,2026-11-20\r\n" +
      "4713,funds_converted,10.00,9.20,EUR,R-3,,2026-11-20\r\n" +
      "4714,cancelled,10.00,,EUR,R-4,,2026-11-20\r\n" +
      "4715,bounced_back,10.00,9.20,EUR,R-5,0.41,2026-11-20\r\n" +
      "4716,funds_refunded,10.00,9.20,EUR,R-6,,2026-11-20\r\n" +
      "4717,sent,10.00,9.20,EUR,R-7,,2026-11-20\r\n" +
      "4718,processing,1O.00,9.20,EUR,R-8,,2026-11-20\r\n";
    const { results, unreadable } = readWiseResults(text);
    expect(results.map((r) => [r.reference, r.outcome])).toEqual([
      ["R-1", "paid"],
      ["R-2", "pending"],
      ["R-3", "pending"],
      ["R-4", "rejected"],
      ["R-5", "pending"],
      ["R-6", "returned"],
    ]);
    // The source amount, which the desk's files send in USD.
    expect(results[0]).toMatchObject({ providerTransactionId: "4711", amount: "10.00", currency: "USD", fee: "0.41" });
    expect(results[3]?.amount).toBe("10.00");
    expect(unreadable).toEqual([
      { line: 8, reason: 'status "sent" is not one this reader knows' },
      { line: 9, reason: "amount is not an amount (a decimal point and, if any, thousands commas: 1,234.56)" },
    ]);
  });

  it("takes a row's source side when it gives the source amount (USD if no currency), else its target side", () => {
    const text =
      "id,status,sourceValue,sourceCurrency,targetValue,targetCurrency,reference,fee\r\n" +
      "4721,outgoing_payment_sent,10.00,USD,8.83,EUR,R-1,0.41\r\n" +
      "4722,outgoing_payment_sent,,,9.20,EUR,R-2,\r\n" +
      "4723,outgoing_payment_sent,10.00,,9.59,USD,R-3,0.41\r\n";
    const { results, unreadable } = readWiseResults(text);
    expect(unreadable).toEqual([]);
    expect(results.map((r) => [r.reference, r.amount, r.currency, r.fee, r.afterFee ?? false])).toEqual([
      ["R-1", "10.00", "USD", "0.41", false],
      ["R-2", "9.20", "EUR", null, true],
      ["R-3", "10.00", "USD", "0.41", false],
    ]);
  });
});

describe("wiseReference", () => {
  it("sends the first 10 characters of the code for USD, Wise's limit there, and the whole reference for EUR", () => {
    expect(wiseReference("STARQUEST-202610-7K3M9Q2XWD4B", "USD")).toBe("7K3M9Q2XWD");
    expect(wiseReference("STARQUEST-202610-7K3M9Q2XWD4B", "EUR")).toBe("STARQUEST-202610-7K3M9Q2XWD4B");
    expect(wiseReference("G-2026-7K3M9Q", "GBP")).toBe("G-2026-7K3M9Q");
    expect(wiseReference("STARQUEST-202610-7K3M9Q2XWD4B", "GBP")).toBe("7K3M9Q2XWD4B");
  });
});
