import { describe, expect, it } from "vitest";
import { journalNumber } from "./journal-files";
import type { Posting } from "./postings";

const STATEMENT = "0f8c3a52-5b1e-4c7e-9a11-2b3c4d5e6f70";

function posting(kind: Posting["kind"], entryId: string): Posting {
  return { kind, entry: { statementId: STATEMENT, entryId } } as unknown as Posting;
}

describe("journalNumber", () => {
  it("gives a statement paid, returned and paid again a number per payment and per return", () => {
    const numbers = [
      journalNumber(posting("payment", `${STATEMENT}:payment`)),
      journalNumber(posting("payment_returned", `${STATEMENT}:payment_returned:41`)),
      journalNumber(posting("payment", `${STATEMENT}:payment:2`)),
      journalNumber(posting("payment_returned", `${STATEMENT}:payment_returned:57`)),
      journalNumber(posting("payment", `${STATEMENT}:payment:3`)),
      journalNumber(posting("accrual", `${STATEMENT}:accrual`)),
    ];
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it("is the same every time, starts with the kind's letters and the statement id, and fits QuickBooks' 21", () => {
    const number = journalNumber(posting("payment_returned", `${STATEMENT}:payment_returned:41`));
    expect(journalNumber(posting("payment_returned", `${STATEMENT}:payment_returned:41`))).toBe(number);
    expect(number).toMatch(/^RP-0f8c3a525b1e[0-9a-f]{6}$/);
    expect(journalNumber(posting("accrual", `${STATEMENT}:accrual`))).toMatch(/^A-0f8c3a525b1e[0-9a-f]{6}$/);
    expect(number.length).toBeLessThanOrEqual(21);
  });
});
