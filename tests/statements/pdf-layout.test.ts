import { describe, expect, it } from "vitest";
import type { StatementDocument } from "@/lib/statements/model";
import { renderStatementPdf, withoutConditions } from "@/lib/statements/pdf-render";
import { pdfPlacedText, pdfPages as pages } from "./pdf-text";

function statement(renewals: number, reversals: number): StatementDocument {
  return {
    number: 7,
    label: "PD-layout-000007",
    statementId: "00000000-0000-4000-8000-000000000007",
    gameId: "layout",
    issuer: { name: "Studio", address: "1 Main Street" },
    recipient: { playerId: 4242, name: "Zoë", email: "zoe@example.test" },
    window: { start: "2026-10-01T00:00:00.000Z", end: "2026-11-01T00:00:00.000Z" },
    issuedAt: "2026-11-02T09:00:00.000Z",
    figures: {
      carriedInUsd: "0.00",
      grossAttributedUsd: "10.00",
      reversedAttributedUsd: "1.00",
      reversedBeforeUsd: "0.50",
      netAttributedUsd: "9.00",
      availableUsd: "9.00",
      rolledOverUsd: "0.00",
      payableUsd: "9.00",
      carriedOutUsd: "0.00",
      minPayoutUsd: "1.00",
    },
    carriedIn: [],
    renewals: {
      count: renewals,
      subscriptionCount: renewals,
      lines: Array.from({ length: renewals }, (_, i) => ({
        periodId: i + 1,
        subscriptionId: `SUB_1700000000_R${String(i + 1).padStart(5, "0")}`,
        item: "Pass",
        paidAt: "2026-10-02",
        amountUsd: "49.99",
        baseUsd: "44.99",
        percent: "20.00",
        attributedUsd: "1.80",
        note: null,
      })),
    },
    reversals: Array.from({ length: reversals }, (_, i) => ({
      periodId: i + 1,
      subscriptionId: `SUB_1700000000_V${String(i + 1).padStart(5, "0")}`,
      refundedAt: "2026-10-09",
      fromWindow: "2026-09-01 to 2026-09-30",
      fromInterval: "2026-09-01T00:00:00Z/2026-10-01T00:00:00Z",
      reversedUsd: "0.04",
    })),
    payment: {
      state: "paid",
      paidOn: "2026-11-03",
      method: "Bank transfer",
      account: "•••• 1234",
      reference: "R-7",
      converted: null,
      providerNote: null,
    },
  };
}

/** The numbers of the lines with this prefix on a page, in the order they print. */
function lineNumbers(page: string, prefix: "R" | "V"): number[] {
  return [...page.matchAll(new RegExp(`SUB_1700000000_${prefix}(\\d{5})`, "g"))].map((m) => Number(m[1]));
}

describe("statement PDF layout", () => {
  it("wraps a long studio name and address in their column, clear of the number and the margins", async () => {
    const doc = statement(1, 0);
    doc.issuer = {
      name: "Northwind Interactive Entertainment GmbH & Co. KG",
      address: "Hauptstraße 123, Gebäude B, 4. Obergeschoss, 10115 Berlin-Mitte, Deutschland, Europäische Union",
    };
    const { width, runs } = await pdfPlacedText(await renderStatementPdf(doc), 1);
    const margin = 36;
    for (const run of runs) {
      expect(run.x, run.text).toBeGreaterThanOrEqual(margin - 0.5);
      expect(run.x + run.width, run.text).toBeLessThanOrEqual(width - margin + 0.5);
    }
    const heading = runs.find((r) => r.text === "Revenue share statement");
    const issuerRuns = runs.filter((r) => /Northwind|GmbH|Hauptstraße|Europäische/.test(r.text));
    expect(heading).toBeDefined();
    expect(issuerRuns.length).toBeGreaterThanOrEqual(4);
    for (const run of issuerRuns) expect(run.x + run.width, run.text).toBeLessThan(heading?.x ?? 0);
  });

  it("puts a short statement on one page", async () => {
    const text = await pages(await renderStatementPdf(statement(3, 1)));
    expect(text).toHaveLength(1);
    expect(lineNumbers(text[0] ?? "", "R")).toEqual([1, 2, 3]);
    expect(text[0]).toContain("PD-layout-000007 · page 1 of 1");
  });

  it("prints a long table on pages of its own, every line once and in order, each page numbered", async () => {
    const text = await pages(await renderStatementPdf(statement(130, 25)));
    expect(text[0]).toContain("130 lines, on the pages that follow.");
    expect(text[0]).toContain("25 lines, on the pages that follow.");
    expect(lineNumbers(text[0] ?? "", "R")).toEqual([]);
    const renewals = text.flatMap((page) => lineNumbers(page, "R"));
    const reversals = text.flatMap((page) => lineNumbers(page, "V"));
    expect(renewals).toEqual(Array.from({ length: 130 }, (_, i) => i + 1));
    expect(reversals).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // 25 reversals fit on one page; 130 renewals take four of at most 40 lines each.
    expect(text).toHaveLength(6);
    for (const page of text) expect(lineNumbers(page, "R").length).toBeLessThanOrEqual(40);
    expect(text.filter((page) => page.startsWith("Renewals (continued)"))).toHaveLength(3);
    for (const [i, page] of text.entries()) expect(page).toContain(`PD-layout-000007 · page ${i + 1} of 6`);
  });

  it("fails a layout that throws with the layout's error, and lays out the next one", async () => {
    const broken = { ...statement(1, 0), renewals: null } as unknown as StatementDocument;
    const failure = await renderStatementPdf(broken).then(
      () => "laid out",
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/statement PDF layout failed: TypeError/);
    // The error's words, not its stack: it is kept in a delivery log and an audit line.
    expect(failure).not.toMatch(/\n\s+at |\.tsx?:\d+/);
    const text = await pages(await renderStatementPdf(statement(2, 0)));
    expect(lineNumbers(text[0] ?? "", "R")).toEqual([1, 2]);
  });

  it("starts the layout thread without the parent's export conditions, keeping its other options", () => {
    expect(withoutConditions("--conditions=react-server --max-old-space-size=2048")).toBe("--max-old-space-size=2048");
    expect(withoutConditions("-C react-server --enable-source-maps --conditions dev")).toBe("--enable-source-maps");
    expect(withoutConditions("")).toBe("");
  });
});
