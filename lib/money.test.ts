import { describe, expect, it } from "vitest";
import {
  formatExact,
  formatUsd,
  money,
  percentOf,
  proRata,
  roundCents,
  sameAmount,
  sumMoney,
  usdInputSchema,
  usdToCoins,
} from "./money";

describe("money", () => {
  it("rounds to the cent half away from zero", () => {
    expect(roundCents(money("1.005")).toFixed(2)).toBe("1.01");
    expect(roundCents(money("-1.005")).toFixed(2)).toBe("-1.01");
    expect(roundCents(money("2.675")).toFixed(2)).toBe("2.68");
    expect(roundCents(money("0.004")).toFixed(2)).toBe("0.00");
  });

  it("keeps exact sums where floats drift", () => {
    expect(sumMoney(["0.10", "0.20"]).toFixed(2)).toBe("0.30");
    expect(sumMoney(Array.from({ length: 1000 }, () => "0.01")).toFixed(2)).toBe("10.00");
  });

  it("computes fee, attribution and pro-rata figures as the rounding rules say", () => {
    expect(percentOf("9.99", "10.00").toFixed(2)).toBe("1.00");
    expect(percentOf("8.99", "20.00").toFixed(2)).toBe("1.80");
    expect(proRata("1.80", "3.33", "9.99").toFixed(2)).toBe("0.60");
    expect(proRata("1.80", "1", "0").toFixed(2)).toBe("0.00");
  });

  it("formats without a negative zero", () => {
    expect(formatUsd("-0.001")).toBe("0.00");
    expect(formatUsd("12.5")).toBe("12.50");
  });

  it("writes a sum of the service's figures exactly, with at least two places", () => {
    expect(formatExact(sumMoney(["0.125", "0.25"]))).toBe("0.375");
    expect(formatExact(sumMoney(["1.10", "2.20"]))).toBe("3.30");
    expect(formatExact(sumMoney(["10", "-10.00"]))).toBe("0.00");
    expect(formatExact(sumMoney(["-0.005"]))).toBe("-0.005");
    expect(formatExact(sumMoney(["123456789012.345678", "0.000001"]))).toBe("123456789012.345679");
  });

  it("refuses text that is not a decimal", () => {
    expect(() => money("1e3")).toThrow();
    expect(() => money("NaN")).toThrow();
    expect(() => money("")).toThrow();
    expect(sameAmount("10.0", "10.00")).toBe(true);
  });

  it("validates typed USD amounts", () => {
    expect(usdInputSchema.safeParse("12.50").success).toBe(true);
    expect(usdInputSchema.safeParse("0").success).toBe(false);
    expect(usdInputSchema.safeParse("1.234").success).toBe(false);
    expect(usdInputSchema.safeParse("-3").success).toBe(false);
  });

  it(
    "stops at the format before the greater-than-zero check: " +
      "an empty or non-numeric field is a message, not a throw",
    () => {
      for (const typed of ["", "abc", "12,50"]) {
        const result = usdInputSchema.safeParse(typed);
        expect(result.success).toBe(false);
        expect(result.error?.issues.map((i) => i.message)).toEqual([
          "must be an amount in USD with at most two decimals, such as 12.50",
        ]);
      }
    },
  );

  it("converts USD to coins at 10 per USD", () => {
    expect(usdToCoins("3.33").toFixed(2)).toBe("33.30");
  });
});
