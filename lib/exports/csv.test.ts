import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { SLACK } from "@/tests/support/slack";
import { csvOutput, type ExportColumn, type ExportRow, formatRow, neutraliseText, restoreText } from "./csv";

const COLUMNS: ExportColumn[] = [
  { name: "name", type: "text", description: "" },
  { name: "amount", type: "decimal", description: "" },
  { name: "at", type: "instant", description: "" },
];

async function render(rows: ExportRow[], bom = false): Promise<Buffer> {
  async function* pages() {
    for (let i = 0; i < rows.length; i += 3) yield rows.slice(i, i + 3);
  }
  const out = csvOutput(COLUMNS, pages(), { bom });
  const chunks: Buffer[] = [];
  for await (const chunk of out.chunks) chunks.push(chunk);
  expect(out.rows()).toBe(rows.length);
  return Buffer.concat(chunks);
}

describe("neutraliseText", () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ["+1 555", "'+1 555"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tx", "'\tx"],
    ["\rx", "'\rx"],
    ["'already", "''already"],
    ["plain, text", "plain, text"],
    ["", ""],
    ["Zoë 東京", "Zoë 東京"],
    ['Bob;=HYPERLINK("http://x","y")', `Bob;'=HYPERLINK("http://x","y")`],
    ["=a;-b;c; @d", "'=a;'-b;c; @d"],
    [";'x;;+y", ";''x;;'+y"],
  ])("%j -> %j", (input, expected) => {
    expect(neutraliseText(input)).toBe(expected);
    expect(restoreText(neutraliseText(input))).toBe(input);
  });

  it("never lets a cell start a formula, and is always reversible", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (value) => {
        const cell = neutraliseText(value);
        expect(cell).not.toMatch(/^[=+\-@\t\r]/);
        expect(restoreText(cell)).toBe(value);
      }),
    );
  });

  it("never lets a cell split at a semicolon start a formula (a comma-decimal locale's separator)", () => {
    const tricky = fc.constantFrom(";", "=", "+", "-", "@", "\t", "\r", "'", "a", " ", ",");
    fc.assert(
      fc.property(fc.array(tricky, { maxLength: 12 }), (chars) => {
        const value = chars.join("");
        const cell = neutraliseText(value);
        for (const piece of cell.split(";")) expect(piece).not.toMatch(/^[=+\-@\t\r]/);
        expect(restoreText(cell)).toBe(value);
      }),
    );
  });
});

describe("formatRow", () => {
  it("writes decimals as they are (a negative stays a number) and refuses anything else in a decimal column", () => {
    expect(formatRow(COLUMNS, { name: "-x", amount: "-12.34", at: "2026-03-01T00:00:00Z" })).toEqual([
      "'-x",
      "-12.34",
      "2026-03-01T00:00:00Z",
    ]);
    expect(formatRow(COLUMNS, { name: null, amount: null, at: null })).toEqual([null, null, null]);
    for (const bad of ["1e5", "NaN", "=1+2", "12,50", " 1.00", "Infinity"]) {
      expect(() => formatRow(COLUMNS, { name: "a", amount: bad, at: null }), bad).toThrow(/not a decimal number/);
    }
  });

  it("formats a row given as cells in column order, in place, and refuses one with the wrong number of cells", () => {
    const cells = ["@x", "0.10", null];
    expect(formatRow(COLUMNS, cells)).toBe(cells);
    expect(cells).toEqual(["'@x", "0.10", null]);
    expect(() => formatRow(COLUMNS, ["a", "1.00"])).toThrow(/2 cells for 3 columns/);
    expect(() => formatRow(COLUMNS, ["a", "1,00", null])).toThrow(/not a decimal number/);
  });
});

describe("csvOutput", () => {
  it("writes the header alone for no rows, with the byte-order mark when asked", async () => {
    expect((await render([])).toString("utf8")).toBe("name,amount,at\r\n");
    const withBom = await render([], true);
    expect([...withBom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it("round-trips any text and decimal through a CSV parser", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            name: fc.option(fc.string({ unit: "grapheme", maxLength: 30 }), { nil: null }),
            amount: fc
              .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 0, max: 6 }))
              .map(([negative, units, places]) => {
                const digits = units.toString().padStart(places + 1, "0");
                const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
                return negative ? `-${text}` : text;
              }),
          }),
          { maxLength: 12 },
        ),
        async (records) => {
          const rows = records.map((r) => ({ ...r, at: "2026-03-01T00:00:00Z" }));
          const parsed = parse(await render(rows, true), { columns: true, bom: true }) as Record<string, string>[];
          expect(parsed).toHaveLength(rows.length);
          parsed.forEach((row, i) => {
            expect(restoreText(row.name!)).toBe(rows[i]!.name ?? "");
            expect(row.amount).toBe(rows[i]!.amount);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("quotes a line break inside a cell, so a reader that ends rows at any CR or LF reads the same rows", async () => {
    const rows = [
      { name: "Small\nPayee", amount: "8.00", at: "2026-03-01T00:00:00Z" },
      { name: "Bob\n=cmd|' /C calc'!A0", amount: "12.50", at: "2026-03-01T00:00:00Z" },
      { name: "Carriage\rReturn", amount: "-1.00", at: "2026-03-01T00:00:00Z" },
    ];
    const text = (await render(rows)).toString("utf8");
    // As a spreadsheet reads it: any CR, LF or CRLF outside quotes ends a row.
    const parsed = parse(text, { record_delimiter: ["\r\n", "\n", "\r"] }) as string[][];
    expect(parsed).toEqual([
      ["name", "amount", "at"],
      ["Small\nPayee", "8.00", "2026-03-01T00:00:00Z"],
      ["Bob\n=cmd|' /C calc'!A0", "12.50", "2026-03-01T00:00:00Z"],
      ["Carriage\rReturn", "-1.00", "2026-03-01T00:00:00Z"],
    ]);
    for (const row of parsed.slice(1)) expect(row[0]).not.toMatch(/^[=+\-@]/);
  });

  it("stops reading pages when the reader stops", async () => {
    let pagesRead = 0;
    let finished = false;
    async function* pages() {
      try {
        for (let i = 0; i < 1_000; i++) {
          pagesRead++;
          yield Array.from({ length: 500 }, (_, k) => ({ name: `n${i}-${k}`, amount: "1.00", at: null }));
        }
      } finally {
        finished = true;
      }
    }
    const out = csvOutput(COLUMNS, pages(), { bom: false });
    for await (const _chunk of out.chunks) break;
    await vi.waitFor(() => expect(finished).toBe(true), { timeout: 10_000 * SLACK });
    // Only what the buffers between the pages and the reader hold (about 64 KB of output) was read ahead.
    expect(pagesRead).toBeLessThan(50);
  });
});
