import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { money } from "@/lib/money";
import {
  CARRIED_WHOLE_REASON,
  carriedWhole,
  carryReason,
  computeStatementFigures,
  statementCarryReason,
} from "./compute";

const figures = (gross: string, reversed: string, carriedIn: string, min = "10.00") =>
  computeStatementFigures({
    grossAttributedUsd: gross,
    reversedAttributedUsd: reversed,
    carriedInUsd: carriedIn,
    minPayoutUsd: min,
  });

describe("a statement's figures", () => {
  it("pays what is available at or above the minimum", () => {
    expect(figures("50.00", "0.00", "0.00")).toEqual({
      netAttributedUsd: "50.00",
      carriedInUsd: "0.00",
      availableUsd: "50.00",
      payableUsd: "50.00",
      carryOutUsd: "0.00",
    });
    expect(figures("10.00", "0.00", "0.00").payableUsd).toBe("10.00");
  });

  it("takes gross and reversed past the cent each in whole cents, net their difference", () => {
    // Rounding the exact net (10.002) gave 10.00 beside a gross of 10.01 and a reversed of 0.00.
    expect(figures("10.006", "0.004", "0.00")).toMatchObject({ netAttributedUsd: "10.01", payableUsd: "10.01" });
    expect(figures("10.004", "0.006", "0.00")).toMatchObject({ netAttributedUsd: "9.99", payableUsd: "0.00" });
    // 9.996 is 10.00 on the statement: at the minimum, paid, never "under the minimum" beside 10.00 available.
    expect(figures("9.996", "0", "0.00")).toMatchObject({ availableUsd: "10.00", payableUsd: "10.00" });
    expect(figures("-0.005", "0", "0.00").netAttributedUsd).toBe("-0.01");
  });

  it("rolls a payable under the minimum to the next statement, and carries a negative balance forward", () => {
    expect(figures("9.99", "0.00", "0.00")).toMatchObject({ payableUsd: "0.00", carryOutUsd: "9.99" });
    expect(figures("10.00", "40.00", "0.00")).toMatchObject({
      netAttributedUsd: "-30.00",
      payableUsd: "0.00",
      carryOutUsd: "-30.00",
    });
    expect(figures("20.00", "0.00", "-30.00")).toMatchObject({ availableUsd: "-10.00", carryOutUsd: "-10.00" });
    expect(figures("5.00", "0.00", "8.00")).toMatchObject({
      availableUsd: "13.00",
      payableUsd: "13.00",
      carryOutUsd: "0.00",
    });
    expect(figures("0.00", "0.00", "0.00")).toMatchObject({ payableUsd: "0.00", carryOutUsd: "0.00" });
    // With no minimum, any positive amount is paid; zero and below never are.
    expect(figures("0.01", "0.00", "0.00", "0.00").payableUsd).toBe("0.01");
    expect(figures("0.00", "0.01", "0.00", "0.00")).toMatchObject({ payableUsd: "0.00", carryOutUsd: "-0.01" });
  });

  it("says why nothing is paid", () => {
    expect(carryReason(figures("9.99", "0.00", "0.00"), "10.00")).toMatch(/Under the minimum payout of USD 10.00/);
    expect(carryReason(figures("0.00", "1.00", "0.00"), "10.00")).toMatch(/Negative balance/);
    expect(carryReason(figures("50.00", "0.00", "0.00"), "10.00")).toBeNull();
  });

  it("always adds up: payable + carried out = net + carried in, payable never negative", () => {
    const cents = fc.integer({ min: -10_000_000, max: 10_000_000 }).map((c) => (c / 100).toFixed(2));
    const positive = fc.integer({ min: 0, max: 10_000_000 }).map((c) => (c / 100).toFixed(2));
    fc.assert(
      fc.property(positive, positive, cents, positive, (gross, reversed, carried, min) => {
        const f = figures(gross, reversed, carried, min);
        expect(money(f.payableUsd).plus(f.carryOutUsd).equals(money(f.netAttributedUsd).plus(f.carriedInUsd))).toBe(
          true,
        );
        expect(money(f.payableUsd).isNegative()).toBe(false);
        if (!money(f.payableUsd).isZero()) expect(money(f.payableUsd).gte(min)).toBe(true);
      }),
    );
  });
});

describe("a statement carried forward whole", () => {
  it("is one that held a balance at or over the minimum, never an empty one with a minimum of 0.00", () => {
    expect(carriedWhole({ state: "carried", availableUsd: "25.00", minPayoutUsd: "10.00" })).toBe(true);
    expect(carriedWhole({ state: "carried", availableUsd: "0.00", minPayoutUsd: "0.00" })).toBe(false);
    const empty = { state: "carried", availableUsd: "0.00", payableUsd: "0.00", minPayoutUsd: "0.00" };
    expect(statementCarryReason(empty)).not.toBe(CARRIED_WHOLE_REASON);
  });
});
