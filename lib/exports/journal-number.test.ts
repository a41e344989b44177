import { describe, expect, it } from "vitest";
import type { RecipientNames } from "@/db/queries/exports";
import { neutraliseText } from "./csv";
import { journalNumber, recipientLabel } from "./journal-files";
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

describe("recipientLabel", () => {
  const names = new Map([
    [800, { name: "@ninja" }],
    [801, { name: "-=Sniper=-" }],
    [802, { name: "Ada  Lovelace" }],
  ]) as unknown as RecipientNames;

  it("puts a name a spreadsheet would run as a formula after the id, so the ledger file needs no apostrophe", () => {
    expect(recipientLabel(names, 800)).toBe("Player 800: @ninja");
    expect(recipientLabel(names, 801)).toBe("Player 801: -=Sniper=-");
    expect(neutraliseText(recipientLabel(names, 800))).toBe("Player 800: @ninja");
    expect(recipientLabel(names, 802)).toBe("Ada Lovelace (player 802)");
    expect(recipientLabel(names, 803)).toBe("Player 803");
    // A spreadsheet splitting cells on semicolons would see a formula after one: it gets the apostrophe there, once,
    // when the cell is written.
    const split = new Map([[806, { name: "Bob;=HYPERLINK(1)" }]]) as unknown as RecipientNames;
    expect(recipientLabel(split, 806)).toBe("Bob;=HYPERLINK(1) (player 806)");
    expect(neutraliseText(recipientLabel(split, 806))).toBe("Bob;'=HYPERLINK(1) (player 806)");
  });

  it("writes no colon in a name QuickBooks keeps (a colon there joins a parent and its sub-customer)", () => {
    const clans = new Map([
      [800, { name: "@ninja" }],
      [802, { name: "Ada  Lovelace" }],
      [804, { name: "Clan: Wolves" }],
      [805, { name: ":-)" }],
    ]) as unknown as RecipientNames;
    const noColon = { noColon: true } as const;
    expect(recipientLabel(clans, 800, noColon)).toBe("Player 800 - @ninja");
    expect(recipientLabel(clans, 804, noColon)).toBe("Clan - Wolves (player 804)");
    expect(recipientLabel(clans, 805, noColon)).toBe("Player 805 - - -)");
    expect(recipientLabel(clans, 802, noColon)).toBe("Ada Lovelace (player 802)");
    expect(recipientLabel(clans, 804)).toBe("Clan: Wolves (player 804)");
  });
});
