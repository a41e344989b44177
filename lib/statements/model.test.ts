import { describe, expect, it } from "vitest";
import type { PayoutStatement } from "@/lib/payouts/statements";
import { statementCsv } from "./csv";
import { statementEmail } from "./email";
import { buildStatementDocument } from "./model";

const base: PayoutStatement = {
  id: "00000000-0000-4000-8000-000000000001",
  batchId: "00000000-0000-4000-8000-000000000002",
  batchStatus: "approved",
  snapshotId: "00000000-0000-4000-8000-000000000003",
  snapshotVersion: 1,
  windowStart: "2026-03-01T00:00:00.000Z",
  windowEnd: "2026-04-01T00:00:00.000Z",
  recipientPlayerId: 1001,
  playerName: "Ana",
  playerEmail: "ana@example.com",
  resolved: true,
  inSnapshot: true,
  renewalCount: 3,
  subscriptionCount: 1,
  reversalCount: 0,
  grossAttributedUsd: "120.00",
  reversedAttributedUsd: "0.00",
  reversedBeforeUsd: "0.00",
  netAttributedUsd: "120.00",
  carriedInUsd: "0.00",
  availableUsd: "120.00",
  payableUsd: "0.00",
  carryOutUsd: "120.00",
  minPayoutUsd: "25.00",
  state: "carried",
  holdReason: null,
  stateChangedAt: "2026-04-03T10:00:00.000Z",
  stateChangedBy: "finance@example.com",
  paidAmountUsd: null,
  paidOn: null,
  paymentMethod: null,
  paymentReference: null,
  closedAt: "2026-04-03T10:00:00.000Z",
  recipientFlags: [],
};

function documentOf(statement: PayoutStatement) {
  return buildStatementDocument({
    statement,
    number: 7,
    gameId: "demo-game",
    issuedAt: "2026-04-02T09:00:00.000Z",
    settings: { studioName: "Studio", studioAddress: "", linkDays: 30 },
    lines: [],
    reversals: [],
    carriedIn: [],
  });
}

/** The text of the statement's email. */
function mailOf(doc: ReturnType<typeof documentOf>): string {
  const mail = statementEmail({
    doc,
    pdf: Buffer.alloc(0),
    from: "a@b.c",
    to: "ana@example.com",
    link: "x",
    linkDays: 30,
    messageId: "<statement.x@b.c>",
  });
  return String(mail.text);
}

function csvCells(csv: string): Map<string, string[]> {
  // Plain cells only in these rows (no quotes, no commas inside): the row's item names it.
  const rows = csv
    .replace(/^\uFEFF/, "")
    .split("\r\n")
    .filter(Boolean);
  return new Map(rows.map((row) => row.split(",")).map((cells) => [`${cells[0]}/${cells[1]}`, cells]));
}

describe("a carried statement", () => {
  it("held, then carried forward whole at or over the minimum, says so and rolls nothing over", () => {
    const doc = documentOf(base);
    expect(doc.payment).toEqual({
      state: "carried",
      reason: "Held, then carried forward whole: paid with the recipient's next statement",
    });
    expect(doc.figures.rolledOverUsd).toBe("0.00");
    expect(doc.figures.carriedOutUsd).toBe("120.00");
    const cells = csvCells(statementCsv(doc));
    expect(cells.get("summary/rolled_over_under_minimum")?.[4]).toBe("0.00");
    expect(cells.get("summary/carried_out")?.[4]).toBe("120.00");
    const mail = mailOf(doc);
    expect(mail).toContain("Nothing is paid this time: Held, then carried forward whole");
    expect(mail).not.toContain("Under the minimum");
  });

  it("under the minimum, rolls over for that reason", () => {
    const doc = documentOf({
      ...base,
      availableUsd: "24.99",
      netAttributedUsd: "24.99",
      grossAttributedUsd: "24.99",
      carryOutUsd: "24.99",
    });
    expect(doc.payment).toEqual({
      state: "carried",
      reason: "Under the minimum payout of USD 25.00: rolls to the next statement",
    });
    expect(doc.figures.rolledOverUsd).toBe("24.99");
  });
});

describe("a held statement's email", () => {
  it("says a payment is held only when something is payable", () => {
    const mailFor = (statement: PayoutStatement) => mailOf(documentOf(statement));
    const held = { ...base, state: "held" as const, holdReason: "Waiting for a tax form", closedAt: null };
    // Under the minimum (5.00 of 25.00): nothing payable yet.
    const underMinimum = { ...held, availableUsd: "5.00", netAttributedUsd: "5.00", carryOutUsd: "0.00" };
    expect(mailFor(underMinimum)).toContain(
      "Nothing is payable yet, and your statement is held: Waiting for a tax form",
    );
    expect(mailFor(underMinimum)).not.toContain("Your payment of");
    const owed = { ...held, payableUsd: "120.00", carryOutUsd: "0.00" };
    expect(mailFor(owed)).toContain("Your payment of USD 120.00 is held: Waiting for a tax form");
  });
});

describe("a statement with a reversal reported again", () => {
  it("says the part an earlier statement deducted is not deducted again, and says nothing of it otherwise", () => {
    const doc = documentOf({ ...base, reversedAttributedUsd: "3.00", reversedBeforeUsd: "2.00" });
    expect(mailOf(doc)).toContain(
      "Of the reversals listed, already deducted in an earlier statement (not deducted again): USD 2.00",
    );
    expect(csvCells(statementCsv(doc)).get("summary/reversals_deducted_before")?.slice(4)).toEqual([
      "2.00",
      "already deducted in an earlier statement (not deducted again)",
    ]);
    const plain = documentOf(base);
    expect(mailOf(plain)).not.toContain("already deducted");
    expect(csvCells(statementCsv(plain)).has("summary/reversals_deducted_before")).toBe(false);
  });
});

describe("a statement of a player whose name is blank", () => {
  it("greets and names the player by id, as when the service has no name", () => {
    for (const playerName of ["  ", "", null]) {
      const doc = documentOf({ ...base, playerName });
      expect(doc.recipient.name).toBeNull();
      expect(mailOf(doc)).toContain(`Hello player #${base.recipientPlayerId},`);
    }
    expect(documentOf({ ...base, playerName: "Ana Lima" }).recipient.name).toBe("Ana Lima");
  });
});

describe("a statement's reversals in its CSV", () => {
  it("are written exactly as the service gave them, as the renewal lines and the PDF are, not rounded each", () => {
    const reversal = {
      periodId: 11,
      subscriptionId: "sub_1",
      refundedAt: new Date("2026-03-20T00:00:00Z"),
      fromWindowStart: new Date("2026-03-01T00:00:00Z"),
      fromWindowEnd: new Date("2026-04-01T00:00:00Z"),
      renewalPaidAt: null,
      reversedAttributedUsd: "0.125",
    };
    const doc = buildStatementDocument({
      statement: { ...base, reversalCount: 2, reversedAttributedUsd: "0.25" },
      number: 7,
      gameId: "demo-game",
      issuedAt: "2026-04-02T09:00:00.000Z",
      settings: { studioName: "Studio", studioAddress: "", linkDays: 30 },
      lines: [],
      reversals: [reversal, { ...reversal, periodId: 12 }] as unknown as Parameters<
        typeof buildStatementDocument
      >[0]["reversals"],
      carriedIn: [],
    });
    const rows = statementCsv(doc)
      .split("\r\n")
      .filter((row) => row.startsWith("reversal,"));
    expect(rows.map((row) => row.split(",")[4])).toEqual(["-0.125", "-0.125"]);
  });
});

describe("a returned statement", () => {
  const returned = { ...base, state: "returned" as const, payableUsd: "120.00", carryOutUsd: "0.00", closedAt: null };
  const back = {
    amountUsd: "120.00",
    at: new Date("2026-04-09T12:00:00Z"),
    reason: "marked paid before the file was sent",
    paidOn: "2026-04-05",
    paymentMethod: "paypal",
    paymentReference: "PP-7",
  };
  const documentReturned = (undone: boolean) =>
    buildStatementDocument({
      statement: returned,
      number: 7,
      gameId: "demo-game",
      issuedAt: "2026-04-10T09:00:00.000Z",
      settings: { studioName: "Studio", studioAddress: "", linkDays: 30 },
      lines: [],
      reversals: [],
      carriedIn: [],
      returned: { ...back, undone },
    });

  it("says a payment recorded by mistake was never sent, not that it came back", () => {
    const doc = documentReturned(true);
    const mail = mailOf(doc);
    expect(mail).toContain(
      "The payment of USD 120.00 marked paid on 2026-04-05 (reference PP-7) was marked by mistake and never sent: " +
        "marked paid before the file was sent. It is owed to you and will be paid.",
    );
    expect(mail).not.toContain("came back");
    const cells = csvCells(statementCsv(doc));
    expect(cells.get("payment/state")?.[5]).toBe("undone");
    expect(cells.get("payment/undone_on")?.[2]).toBe("2026-04-09");
    expect(cells.has("payment/returned_on")).toBe(false);
  });

  it("says a payment that came back came back", () => {
    const doc = documentReturned(false);
    expect(mailOf(doc)).toContain("(reference PP-7) came back on 2026-04-09: marked paid before the file was sent.");
    const cells = csvCells(statementCsv(doc));
    expect(cells.get("payment/state")?.[5]).toBe("returned");
    expect(cells.get("payment/returned_on")?.[2]).toBe("2026-04-09");
  });
});
