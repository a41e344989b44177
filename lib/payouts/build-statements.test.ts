import { money } from "@/core/money";
import { describe, expect, it } from "vitest";
import {
  buildStatements,
  type CarryInput,
  type SnapshotRecipientInput,
  staleDeductionRefusal,
} from "./build-statements";
import { netInCents } from "@/core/money";

function recipient(id: string, gross: string, reversed = "0", more: Partial<SnapshotRecipientInput> = {}) {
  return {
    recipient: id,
    resolved: true,
    email: `${id}@example.test`,
    name: `Player ${id}`,
    renewals: 1,
    subscriptions: 1,
    reversals: reversed === "0" ? 0 : 1,
    grossUsd: gross,
    reversedUsd: reversed,
    hasUnavailable: false,
    ...more,
  } satisfies SnapshotRecipientInput;
}

function carry(from: string, id: string, amount: string, more: Partial<CarryInput> = {}): CarryInput {
  return { fromStatementId: from, recipient: id, amountUsd: amount, resolved: true, email: null, name: null, ...more };
}

function build(recipients: SnapshotRecipientInput[], carries: CarryInput[] = [], minPayoutUsd = "10.00") {
  let n = 0;
  return buildStatements({ recipients, carries, minPayoutUsd, newId: () => `s${++n}` });
}

describe("buildStatements", () => {
  it("pays a net at or over the minimum and rolls a smaller one over", () => {
    const { statements, payableUsd } = build([recipient("1", "25.00", "5.00"), recipient("2", "9.99")]);
    expect(statements.map((s) => [s.recipient, s.netAttributedUsd, s.payableUsd, s.carryOutUsd])).toEqual([
      ["1", "20.00", "20.00", "0.00"],
      ["2", "9.99", "0.00", "9.99"],
    ]);
    expect(payableUsd).toBe("20.00");
  });

  it("takes in every untaken carry of the recipient, linking each to the new statement", () => {
    const { statements, carries } = build(
      [recipient("1", "4.00")],
      [carry("old-a", "1", "3.50"), carry("old-b", "1", "-1.00"), carry("old-c", "1", "5.00")],
    );
    expect(statements[0]).toMatchObject({
      id: "s1",
      carriedInUsd: "7.50",
      availableUsd: "11.50",
      payableUsd: "11.50",
      carryOutUsd: "0.00",
    });
    expect(carries).toEqual([
      { fromStatementId: "old-a", toStatementId: "s1", amountUsd: "3.50" },
      { fromStatementId: "old-b", toStatementId: "s1", amountUsd: "-1.00" },
      { fromStatementId: "old-c", toStatementId: "s1", amountUsd: "5.00" },
    ]);
  });

  it("carries a negative available forward whole", () => {
    const [s] = build([recipient("1", "2.00", "12.00")], [carry("old", "1", "4.00")]).statements;
    expect(s).toMatchObject({ netAttributedUsd: "-10.00", availableUsd: "-6.00", payableUsd: "0.00" });
    expect(s?.carryOutUsd).toBe("-6.00");
  });

  it("gives a recipient absent from the snapshot a statement only when the carried balance reaches the minimum", () => {
    const { statements, carries } = build(
      [],
      [
        carry("a", "7", "12.00", { resolved: false, email: "seven@example.test" }),
        carry("b", "8", "9.00"),
        carry("c", "9", "-20.00"),
      ],
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({
      recipient: "7",
      inSnapshot: false,
      renewals: 0,
      grossUsd: "0.00",
      reversedUsd: "0.00",
      carriedInUsd: "12.00",
      payableUsd: "12.00",
      email: "seven@example.test",
      flags: ["unresolved_recipient"],
    });
    expect(carries).toEqual([{ fromStatementId: "a", toStatementId: "s1", amountUsd: "12.00" }]);
  });

  it("flags unresolved recipients and lines without attribution", () => {
    const { statements } = build([
      recipient("1", "20.00", "0", { resolved: false }),
      recipient("2", "20.00", "0", { hasUnavailable: true }),
      recipient("3", "20.00"),
    ]);
    expect(statements.map((s) => s.flags)).toEqual([["unresolved_recipient"], ["attribution_unavailable"], []]);
  });

  it("keeps payable + carried out = available to the cent for every statement", () => {
    const { statements } = build(
      [recipient("1", "10.005"), recipient("2", "0.01"), recipient("3", "100.00", "100.00")],
      [carry("x", "2", "9.99")],
    );
    for (const s of statements) {
      expect(money(s.payableUsd).plus(s.carryOutUsd).equals(s.availableUsd)).toBe(true);
    }
  });

  it("deducts a reversal reported again once, in cents, so that with the part deducted before it adds up", () => {
    // Reported 2.005 (2.01 as a statement takes it), 0.005 of it (0.01) deducted in another window's batch.
    const [s] = build([recipient("1", "10.00", "2.005", { reversedBeforeUsd: "0.005" })]).statements;
    expect([s?.reversedUsd, s?.reversedBeforeUsd, s?.netAttributedUsd]).toEqual(["2.00", "0.01", "8.00"]);
    expect(
      netInCents("10.00", "2.005")
        .plus(s?.reversedBeforeUsd ?? "")
        .toFixed(2),
    ).toBe(s?.netAttributedUsd);
    // Never more than reported here, never less than nothing.
    const [capped, none] = build([
      recipient("2", "10.00", "1.00", { reversedBeforeUsd: "3.00" }),
      recipient("3", "10.00", "1.00", { reversedBeforeUsd: "0" }),
    ]).statements;
    expect([capped?.reversedUsd, capped?.reversedBeforeUsd, capped?.netAttributedUsd]).toEqual([
      "0.00",
      "1.00",
      "10.00",
    ]);
    expect([none?.reversedUsd, none?.reversedBeforeUsd]).toEqual(["1.00", "0.00"]);
  });

  it("refuses approval only when what other windows deducted changed since preparation, in cents", () => {
    const held = { recipient: "1", storedUsd: "0.01", reportedUsd: "2.005", beforeNowUsd: "0.005" };
    expect(staleDeductionRefusal([held])).toBeNull();
    expect(staleDeductionRefusal([held, { ...held, recipient: "4", beforeNowUsd: "1.00" }])).toMatch(
      /\(recipient 4\): approving would deduct it twice/,
    );
  });
});
