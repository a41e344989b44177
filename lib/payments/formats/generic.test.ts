import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { items } from "@/tests/payments/items";
import { GENERIC_COLUMNS, readGenericResults, writeGenericFiles } from "./generic";

describe("generic payment file", () => {
  it("writes the documented columns, one file per currency, text safe for a spreadsheet", () => {
    const list = items(3, (i) =>
      i === 3
        ? {
            currency: "EUR",
            convertedAmount: "1.10",
            recipientName: "=HYPERLINK(x)",
            method: { kind: "bank", iban: "DE89370400440532013000", bic: null, holder: 'Zoë, "Z"', country: "DE" },
          }
        : {},
    );
    const files = writeGenericFiles(list, { baseName: "b" });
    expect(files.map((f) => f.fileName)).toEqual(["b-payments-EUR.csv", "b-payments-USD.csv"]);
    // A spreadsheet reads the file as UTF-8 by its byte-order mark.
    expect(files.map((f) => f.content.startsWith("\uFEFFreference,"))).toEqual([true, true]);
    const [header, row] = parse(files[0]?.content ?? "", { bom: true }) as string[][];
    expect(header).toEqual([...GENERIC_COLUMNS]);
    expect(Object.fromEntries(header?.map((h, i) => [h, row?.[i]]) ?? [])).toEqual({
      reference: "R-000003",
      recipient_name: "'=HYPERLINK(x)",
      method: "bank",
      email: "",
      paypal_payer_id: "",
      iban: "DE89370400440532013000",
      bic: "",
      account_holder: 'Zoë, "Z"',
      country: "DE",
      amount_usd: "0.04",
      currency: "EUR",
      amount: "1.10",
      note: "Revenue share October 2026",
    });
    expect(parse(files[1]?.content ?? "", { bom: true })).toHaveLength(3);
  });
});

describe("generic results", () => {
  it("reads the four outcomes and lists rows it cannot read", () => {
    const text =
      "\uFEFFreference,outcome,provider_transaction_id,amount,currency,fee,reason,extra\r\n" +
      "R-1,paid,T1,1.00,USD,0.10,,x\r\n" +
      "R-2,pending,,,,,,\r\n" +
      "R-3,rejected,,,,,account closed,\r\n" +
      "R-4,RETURNED,T4,1.00,USD,,returned by bank,\r\n" +
      "R-5,done,T5,1.00,USD,,,\r\n" +
      "R-6,paid,T6,1.00,USD,ten,,\r\n";
    const { results, unreadable } = readGenericResults(text);
    expect(results.map((r) => [r.reference, r.outcome, r.reason])).toEqual([
      ["R-1", "paid", null],
      ["R-2", "pending", null],
      ["R-3", "rejected", "account closed"],
      ["R-4", "returned", "returned by bank"],
    ]);
    expect(unreadable).toEqual([
      { line: 6, reason: 'status "done" is not one this reader knows' },
      { line: 7, reason: "fee is not an amount (a decimal point and, if any, thousands commas: 1,234.56)" },
    ]);
  });

  it("names the columns a file lacks as its header would", () => {
    expect(readGenericResults("reference,status\r\nR-1,paid\r\n")).toEqual({
      results: [],
      unreadable: [{ line: 1, reason: "missing column(s): outcome" }],
    });
    expect(readGenericResults("ref,state\r\nR-1,paid\r\n").unreadable).toEqual([
      { line: 1, reason: "missing column(s): reference, outcome" },
    ]);
  });

  it("does not read rows that run together or carry cells past the header, nor a column named twice", () => {
    // A header ending in CRLF, rows in LF: the rows run together as one record, its cells past the header's width.
    const mixed = "reference,outcome,provider_transaction_id\r\nREF-A,paid,TX1\nREF-B,paid,TX2\n";
    expect(readGenericResults(mixed)).toEqual({
      results: [],
      unreadable: [
        {
          line: 3,
          reason: "has more cells than the header (a comma or line break out of place, or rows run together): not read",
        },
      ],
    });
    // An unquoted comma in a reason moves the cells after it: read no more than the header names.
    const comma = "reference,outcome,reason\r\nR-1,rejected,account closed, by the bank\r\nR-2,paid,\r\n";
    const read = readGenericResults(comma);
    expect(read.results.map((r) => r.reference)).toEqual(["R-2"]);
    expect(read.unreadable.map((u) => u.line)).toEqual([2]);
    expect(readGenericResults("reference,outcome,outcome\r\nR-1,paid,rejected\r\n").unreadable).toEqual([
      { line: 1, reason: 'the header names the column "outcome" twice: keep one' },
    ]);
  });
});
