import { describe, expect, it } from "vitest";
import { createPaymentFileSchema, proposedExecutionDate, returnPaymentSchema, sepaExecutionDate } from "./schemas";

describe("a payment to undo, as the return dialog names it", () => {
  const id = "0b9f3c1e-7a2d-4c5b-9e8f-1a2b3c4d5e6f";

  it("reads the statement and the instant its payment was shown at", () => {
    const parsed = returnPaymentSchema.parse({ payment: `${id}@2026-03-31T10:00:00.123Z`, reason: "bank bounced" });
    expect(parsed.payment).toEqual({ statementId: id, paidShownAt: "2026-03-31T10:00:00.123Z" });
  });

  it("asks for the payment when none was chosen", () => {
    const parsed = returnPaymentSchema.safeParse({ payment: " ", reason: "bank bounced" });
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["payment", "must be chosen"]]);
  });

  it("refuses an instant off the calendar, which a lenient date reader would move to the next month", () => {
    for (const at of ["2026-02-31T00:00:00Z", "2026-04-31T10:00:00Z", "2026-03-01T24:00:00Z"]) {
      const parsed = returnPaymentSchema.safeParse({ payment: `${id}@${at}`, reason: "bank bounced" });
      expect(
        parsed.error?.issues.map((i) => i.message),
        at,
      ).toEqual(["is not a paid statement shown on this page"]);
    }
  });
});

describe("a payment file to make", () => {
  const batchId = "0b9f3c1e-7a2d-4c5b-9e8f-1a2b3c4d5e6f";
  const messages = (input: Record<string, string>) =>
    createPaymentFileSchema.safeParse({ batchId, ...input }).error?.issues.map((i) => [i.path.join("."), i.message]);

  it("asks a SEPA file for its rate at the rate, and the other methods for none", () => {
    expect(messages({ method: "sepa" })).toEqual([
      ["eurRate", "a SEPA file pays in EUR: give the USD→EUR rate and where it comes from"],
    ]);
    expect(messages({ method: "sepa", eurRate: "0.92", rateSource: "ECB" })).toBeUndefined();
    expect(messages({ method: "sepa", rateSource: "ECB" })).toEqual([
      ["eurRate", "give the rate and where it comes from together"],
    ]);
    expect(messages({ method: "wise" })).toBeUndefined();
  });
});

describe("the day a SEPA file asks the bank to pay", () => {
  it("asks the day before UTC's today as today, and any other day as given", () => {
    expect(sepaExecutionDate("2026-11-29", "2026-11-30")).toBe("2026-11-30");
    expect(sepaExecutionDate("2026-02-28", "2026-03-01")).toBe("2026-03-01");
    expect(sepaExecutionDate("2026-12-31", "2027-01-01")).toBe("2027-01-01");
    expect(sepaExecutionDate("2026-11-30", "2026-11-30")).toBe("2026-11-30");
    expect(sepaExecutionDate("2026-12-04", "2026-11-30")).toBe("2026-12-04");
  });
});

describe("the execution date a payment file's form proposes", () => {
  it("is the person's own day where it is later than UTC's, else UTC's", () => {
    // 00:30 in Berlin on 2 December is still 1 December in UTC: the bank there would be asked for a day gone by.
    const justAfterMidnightInBerlin = new Date("2026-12-01T23:30:00Z");
    expect(proposedExecutionDate("2026-12-01", justAfterMidnightInBerlin, "Europe/Berlin")).toBe("2026-12-02");
    expect(proposedExecutionDate("2026-12-31", new Date("2026-12-31T23:30:00Z"), "Asia/Tokyo")).toBe("2027-01-01");
    expect(proposedExecutionDate("2026-12-01", justAfterMidnightInBerlin, "UTC")).toBe("2026-12-01");
    // West of UTC the day is behind UTC's: UTC's stands (the form takes the day before as today, sepaExecutionDate).
    expect(proposedExecutionDate("2026-12-02", new Date("2026-12-02T02:00:00Z"), "America/New_York")).toBe(
      "2026-12-02",
    );
  });
});
