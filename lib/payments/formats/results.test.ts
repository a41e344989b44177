import { describe, expect, it } from "vitest";
import { resultAmountSchema } from "./results";

describe("an amount in a results file", () => {
  it("reads a decimal point with thousands commas, and an empty cell as none", () => {
    expect(resultAmountSchema.parse("1,234.56")).toBe("1234.56");
    expect(resultAmountSchema.parse("12,345,678.9")).toBe("12345678.9");
    expect(resultAmountSchema.parse(" -0.35 ")).toBe("-0.35");
    expect(resultAmountSchema.parse("1234")).toBe("1234");
    expect(resultAmountSchema.parse("")).toBeNull();
  });

  it("refuses a decimal comma and commas that are not thousands groups, never reading 12,34 as 1234", () => {
    for (const cell of ["12,34", "100,50", "0,35", "1,2,3", "1234,567", ",123", "1,234,56", "12.34.5", "1e3"]) {
      expect(resultAmountSchema.safeParse(cell).success, cell).toBe(false);
    }
  });
});
