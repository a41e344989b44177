import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { items } from "@/tests/payments/items";
import { readPaypalResults, writePaypalFiles } from "./paypal";
import { PaymentFileError } from "./types";

/**
 * The reader of these files is written here from PayPal's Payouts Web documentation, not from the writer: each
 * row is recipient, amount, currency, Customer ID, note, wallet; no header; one currency per file; at most 5,000
 * rows per file; recipient an email address or a 13-character PayerID; wallet PAYPAL.
 */
type Row = { recipient: string; amount: string; currency: string; customerId: string; note: string; wallet: string };

function readAsPaypal(content: string): Row[] {
  const rows = parse(content, { relax_column_count: false }) as string[][];
  return rows.map((cells) => {
    expect(cells).toHaveLength(6);
    const [recipient, amount, currency, customerId, note, wallet] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    expect(recipient).toMatch(/^([^@\s]+@[^@\s]+\.[a-z]+|[A-Z0-9]{13})$/);
    expect(amount).toMatch(/^\d+\.\d{2}$/);
    expect(currency).toMatch(/^[A-Z]{3}$/);
    expect(customerId).not.toBe("");
    expect(wallet).toBe("PAYPAL");
    return { recipient, amount, currency, customerId, note, wallet };
  });
}

describe("PayPal Payouts Web file", () => {
  it("splits 12,001 payouts into numbered parts of at most 5,000 rows, each Customer ID once", () => {
    const files = writePaypalFiles(items(12_001), { baseName: "demo-2026-10" });
    expect(files.map((f) => [f.fileName, f.rowCount])).toEqual([
      ["demo-2026-10-paypal-USD-part1of3.csv", 5000],
      ["demo-2026-10-paypal-USD-part2of3.csv", 5000],
      ["demo-2026-10-paypal-USD-part3of3.csv", 2001],
    ]);
    const ids = new Set<string>();
    for (const file of files) {
      const rows = readAsPaypal(file.content);
      expect(rows.length).toBeLessThanOrEqual(5000);
      expect(rows.length).toBe(file.rowCount);
      expect(file.content.endsWith("\r\n")).toBe(true);
      for (const row of rows) ids.add(row.customerId);
    }
    expect(ids.size).toBe(12_001);
  });

  it("writes one currency per file, the converted amount for non-USD payouts, and payer ids as given", () => {
    const list = items(4, (i) =>
      i % 2 === 0
        ? { currency: "EUR", convertedAmount: "9.25", method: { kind: "paypal_payer_id", payerId: "ABCDEFGHJK123" } }
        : {},
    );
    const files = writePaypalFiles(list, { baseName: "b" });
    expect(files.map((f) => f.currency)).toEqual(["EUR", "USD"]);
    for (const file of files) {
      const rows = readAsPaypal(file.content);
      expect(new Set(rows.map((r) => r.currency))).toEqual(new Set([file.currency]));
    }
    const eur = readAsPaypal(files[0]?.content ?? "");
    expect(eur).toEqual([
      {
        recipient: "ABCDEFGHJK123",
        amount: "9.25",
        currency: "EUR",
        customerId: "R-000002",
        note: "Revenue share October 2026",
        wallet: "PAYPAL",
      },
      {
        recipient: "ABCDEFGHJK123",
        amount: "9.25",
        currency: "EUR",
        customerId: "R-000004",
        note: "Revenue share October 2026",
        wallet: "PAYPAL",
      },
    ]);
    expect(files[0]?.totalAmount).toBe("18.50");
    expect(files[0]?.totalUsd).toBe("0.08");
  });

  it("quotes a note with commas and quotes, and drops a leading formula character", () => {
    const [file] = writePaypalFiles(
      items(1, () => ({ note: '=SUM(A1), "thanks"' })),
      { baseName: "b" },
    );
    expect(readAsPaypal(file?.content ?? "")[0]?.note).toBe('SUM(A1), "thanks"');
  });

  it("refuses duplicate Customer IDs, bank recipients, and malformed amounts, naming each", () => {
    const dup = items(2, () => ({ reference: "SAME-1" }));
    expect(() => writePaypalFiles(dup, { baseName: "b" })).toThrow(PaymentFileError);
    const bank = items(1, () => ({
      method: { kind: "bank", iban: "DE89370400440532013000", bic: null, holder: "A", country: "DE" },
    }));
    expect(() => writePaypalFiles(bank, { baseName: "b" })).toThrow(/PayPal pays only/);
    try {
      writePaypalFiles(
        items(1, () => ({ amountUsd: "12.5" })),
        { baseName: "b" },
      );
      expect.unreachable();
    } catch (error) {
      expect((error as PaymentFileError).problems).toEqual([
        { reference: "R-000001", message: "amountUsd: must be an amount with two decimals, such as 12.30" },
      ]);
    }
  });
});

describe("PayPal results", () => {
  it("reads every documented item status by Customer ID, tolerating a BOM, CRLF and unknown columns", () => {
    const text =
      "\uFEFFTransaction ID,Customer ID,Recipient,Amount,Currency,Fee,Status,Batch\r\n" +
      "0C413693MN970190K,R-1,a@example.com,9.87,USD,0.25,SUCCESS,Q8K\r\n" +
      "1A,R-2,b@example.com,1.00,USD,,PENDING,Q8K\r\n" +
      "2A,R-3,b@example.com,1.00,USD,,Unclaimed,Q8K\r\n" +
      "3A,R-4,b@example.com,1.00,USD,,ONHOLD,Q8K\r\n" +
      "4A,R-5,b@example.com,1.00,USD,,BLOCKED,Q8K\r\n" +
      "5A,R-6,b@example.com,1.00,USD,,FAILED,Q8K\r\n" +
      "6A,R-7,b@example.com,1.00,USD,,RETURNED,Q8K\r\n" +
      "7A,R-8,b@example.com,1.00,USD,,REFUNDED,Q8K\r\n" +
      '8A,R-9,b@example.com,"1,001.00",USD,-0.30,REVERSED,Q8K\r\n';
    const { results, unreadable } = readPaypalResults(text);
    expect(unreadable).toEqual([]);
    expect(results.map((r) => [r.reference, r.outcome, r.rawStatus])).toEqual([
      ["R-1", "paid", "SUCCESS"],
      ["R-2", "pending", "PENDING"],
      ["R-3", "pending", "Unclaimed"],
      ["R-4", "pending", "ONHOLD"],
      ["R-5", "rejected", "BLOCKED"],
      ["R-6", "rejected", "FAILED"],
      ["R-7", "returned", "RETURNED"],
      ["R-8", "returned", "REFUNDED"],
      ["R-9", "returned", "REVERSED"],
    ]);
    expect(results[0]).toEqual({
      reference: "R-1",
      outcome: "paid",
      providerTransactionId: "0C413693MN970190K",
      amount: "9.87",
      currency: "USD",
      fee: "0.25",
      reason: null,
      rawStatus: "SUCCESS",
    });
    expect(results[8]?.amount).toBe("1001.00");
    expect(results[8]?.fee).toBe("0.30");
  });

  it("lists malformed rows with their line and reason, and reads the rest (API field names, LF ends)", () => {
    const text =
      "sender_item_id,transaction_id,transaction_status,amount,currency,payout_item_fee\n" +
      "R-1,T1,SUCCESS,abc,USD,0.25\n" +
      ",T2,SUCCESS,1.00,USD,\n" +
      "R-3,T3,LOST,1.00,USD,\n" +
      "R-4,T4,SUCCESS,1.00,US DOLLARS,\n" +
      "R-5,T5,\n" +
      "\n" +
      "R-6,T6,SUCCESS,2.00,usd,0.10\n";
    const { results, unreadable } = readPaypalResults(text);
    expect(results.map((r) => [r.reference, r.currency])).toEqual([["R-6", "USD"]]);
    expect(unreadable).toEqual([
      { line: 2, reason: "amount is not an amount (a decimal point and, if any, thousands commas: 1,234.56)" },
      { line: 3, reason: "reference has no reference" },
      { line: 4, reason: 'status "LOST" is not one this reader knows' },
      { line: 5, reason: "currency is not a currency" },
      { line: 6, reason: "has no status" },
    ]);
  });

  it("reads nothing from a file without the Customer ID column, and says so", () => {
    expect(readPaypalResults("Transaction ID,Status\r\nT1,SUCCESS\r\n")).toEqual({
      results: [],
      unreadable: [
        { line: 1, reason: "missing column(s): Customer ID (or sender_item_id, Sender Item ID, Unique ID)" },
      ],
    });
    expect(readPaypalResults('a,"b\r\n').unreadable[0]?.reason).toMatch(/^not a CSV file/);
  });

  it("says what is wrong with a text that is not CSV and where, without quoting its cells", () => {
    const iban = "DE89370400440532013000";
    const text = `Customer ID,Status,Amount\r\nR-1,SUCCESS,1.00\r\nR-2,SUCCESS,x"${iban}"\r\n`;
    const { results, unreadable } = readPaypalResults(text);
    expect(results).toEqual([]);
    expect(unreadable).toEqual([{ line: 3, reason: expect.stringMatching(/^not a CSV file: [a-z ]+$/) }]);
    expect(JSON.stringify(unreadable)).not.toContain(iban);
  });
});
