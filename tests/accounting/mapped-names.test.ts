import { describe, expect, it } from "vitest";
import { mapAccountSchema } from "@/lib/accounting/schemas";

/**
 * A mapped account or tax rate goes into the Xero and QuickBooks files exactly as typed (the ledger matches it by
 * name), so one a spreadsheet would run as a formula (or one starting with the apostrophe that marks a cell kept from
 * it) is refused when it is mapped rather than neutralised in the file.
 */
const FORMULA = "must not start with =, +, -, @ or ' (a spreadsheet would run it as a formula or hide the ')";

function refusal(input: Record<string, unknown>) {
  const parsed = mapAccountSchema.safeParse({ account: "payable", ...input });
  return parsed.success ? null : parsed.error.issues.map((issue) => [issue.path.join("."), issue.message]);
}

describe("a mapped account code or tax rate", () => {
  it.each(["-Revenue share payable", "+2100", "=SUM(A1)", "@payable", "  -Payable", "'Payable"])(
    "refuses code %j",
    (code) => {
      expect(refusal({ code })).toEqual([["code", FORMULA]]);
    },
  );

  it.each(["+GST 15%", "-Exempt", "'Tax Exempt"])("refuses tax rate %j", (taxRate) => {
    expect(refusal({ code: "2100", taxRate })).toEqual([["taxRate", FORMULA]]);
  });

  it("takes names with those characters after the first, and an empty tax rate as none", () => {
    expect(mapAccountSchema.parse({ account: "expense", code: "Revenue share - creators", taxRate: "" })).toEqual({
      account: "expense",
      code: "Revenue share - creators",
      taxRate: null,
    });
    expect(mapAccountSchema.parse({ account: "clearing", code: " 610 ", taxRate: "Tax Exempt (0%)" })).toEqual({
      account: "clearing",
      code: "610",
      taxRate: "Tax Exempt (0%)",
    });
  });

  it("says what is wrong with the format alone when the text holds a line break", () => {
    expect(refusal({ code: "-payable\nx" })).toEqual([["code", "must not hold line breaks or control characters"]]);
  });
});
