import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PAYMENT_REFERENCE_PATTERN, paymentReference } from "./reference";

const month = fc
  .tuple(fc.integer({ min: 2000, max: 2099 }), fc.integer({ min: 1, max: 12 }))
  .map(([y, m]) => `${y}-${String(m).padStart(2, "0")}`);

describe("payment reference", () => {
  it("is at most 30 characters of A-Z, 0-9 and -, and the same for the same statement", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), month, fc.uuid(), (gameId, m, statementId) => {
        const reference = paymentReference({ gameId, month: m, statementId });
        expect(reference.length).toBeLessThanOrEqual(30);
        expect(reference).toMatch(/^[A-Z0-9-]+$/);
        expect(reference).toMatch(PAYMENT_REFERENCE_PATTERN);
        expect(paymentReference({ gameId, month: m, statementId })).toBe(reference);
      }),
    );
  });

  it("differs between the statements of one game", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.uuid(), { minLength: 2, maxLength: 500 }), month, (ids, m) => {
        const references = ids.map((statementId) => paymentReference({ gameId: "demo-game", month: m, statementId }));
        expect(new Set(references).size).toBe(ids.length);
      }),
      { numRuns: 50 },
    );
  });

  it("differs between the filings of one statement, and the first is the statement's own", () => {
    fc.assert(
      fc.property(fc.uuid(), month, fc.integer({ min: 2, max: 1000 }), (statementId, m, filing) => {
        const first = paymentReference({ gameId: "demo-game", month: m, statementId });
        expect(paymentReference({ gameId: "demo-game", month: m, statementId, filing: 1 })).toBe(first);
        const again = paymentReference({ gameId: "demo-game", month: m, statementId, filing });
        expect(again).toMatch(PAYMENT_REFERENCE_PATTERN);
        expect(again).not.toBe(first);
        expect(again).not.toBe(paymentReference({ gameId: "demo-game", month: m, statementId, filing: filing + 1 }));
      }),
      { numRuns: 200 },
    );
    expect(() => paymentReference({ gameId: "g", month: "2026-10", statementId: "x", filing: 0 })).toThrow();
  });

  it("reads as game, month and code", () => {
    const reference = paymentReference({ gameId: "demo-game", month: "2026-10", statementId: "x" });
    expect(reference).toMatch(/^DEMOGAME-202610-[0-9A-Z]{12}$/);
    expect(paymentReference({ gameId: "éé", month: "2026-10", statementId: "x" })).toMatch(/^G-202610-/);
    expect(() => paymentReference({ gameId: "g", month: "2026-13", statementId: "x" })).toThrow();
  });
});
