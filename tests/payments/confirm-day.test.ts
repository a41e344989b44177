import { describe, expect, it } from "vitest";
import { confirmText } from "@/app/(desk)/payouts/[window]/payment-file-fields";

/** The question asked before a payment file is written names the day the file asks the bank to pay. */
describe("a SEPA file's confirmation", () => {
  const values = { method: "sepa", eurRate: "0.92", rateSource: "ECB", executionDate: "" };

  it("names the day the file records: the day before UTC's today is asked as today", () => {
    expect(confirmText({ ...values, executionDate: "2026-11-29" }, 3, "2026-11-30")).toMatch(
      / The bank pays on 2026-11-30\.$/,
    );
    expect(confirmText({ ...values, executionDate: " 2026-12-02 " }, 3, "2026-11-30")).toMatch(
      / The bank pays on 2026-12-02\.$/,
    );
    expect(confirmText(values, 3, "2026-11-30")).toMatch(/ The bank pays on 2026-11-30\.$/);
  });

  it("names no day for a file that asks for none", () => {
    expect(confirmText({ ...values, method: "paypal", executionDate: "2026-11-29" }, 3, "2026-11-30")).not.toMatch(
      /pays on/,
    );
  });
});
