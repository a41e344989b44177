import { describe, expect, it } from "vitest";
import { convertUsd, fxRateSchema } from "./fx";
import { sumAmounts } from "./formats/types";

describe("USD conversion", () => {
  it("rounds to the cent half up, ties included", () => {
    expect(convertUsd("10.00", "0.9")).toBe("9.00");
    // 1.00 × 0.125 = 0.125 exactly: a tie, rounds up (half-even would give 0.12).
    expect(convertUsd("1.00", "0.125")).toBe("0.13");
    // 0.01 × 0.5 = 0.005: a tie at the smallest amount.
    expect(convertUsd("0.01", "0.5")).toBe("0.01");
    // 3.00 × 0.335 = 1.005: the classic float trap (1.005 is 1.00499… as a double).
    expect(convertUsd("3.00", "0.335")).toBe("1.01");
    // Just below a tie rounds down.
    expect(convertUsd("1.00", "0.12499999")).toBe("0.12");
    expect(convertUsd("123456.78", "0.92345678")).toBe("114007.00");
  });

  it("accepts only positive rates with at most 8 decimal places, and plain USD amounts", () => {
    for (const bad of ["", "abc", "0", "0.000000000", "-1", "1.123456789", "1e3", "1,5", " "]) {
      expect(fxRateSchema.safeParse(bad).success, bad).toBe(false);
    }
    expect(fxRateSchema.parse("0.92345678")).toBe("0.92345678");
    expect(() => convertUsd("1.001", "1")).toThrow();
    expect(() => convertUsd("12", "abc")).toThrow();
  });

  it("sums the rounded amounts for a control sum", () => {
    const amounts = ["1.00", "1.00", "1.00"].map((usd) => convertUsd(usd, "0.125"));
    expect(amounts).toEqual(["0.13", "0.13", "0.13"]);
    expect(sumAmounts(amounts)).toBe("0.39");
  });
});
