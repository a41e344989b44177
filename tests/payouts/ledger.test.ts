import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { markStatementsPaid, releaseStatements } from "@/lib/payouts/batches";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { listLedgerEntries } from "@/lib/payouts/ledger";
import { wasRecipientPaidFor } from "@/lib/payouts/paid-status";
import { sumMoney } from "@/lib/money";
import { monthWindow } from "@/lib/time";
import { GAME, insertSnapshot, web } from "./fixtures";
import { approver, payWindow, recipientStatement as byRecipient, setUpPayoutsDatabase } from "../support/payouts";
import { expectInvariant } from "./ledger-setup";

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

describe("the recipient ledger across months", () => {
  it("pays, rolls over, carries negatives forward and recovers, keeping paid + carried = net attributed", async () => {
    await insertSnapshot(db, {
      window: "2026-01",
      recipients: [
        { id: 1001, gross: "50.00" },
        { id: 1002, gross: "8.00" },
        { id: 1003, gross: "30.00" },
      ],
    });
    await insertSnapshot(db, {
      window: "2026-02",
      recipients: [
        { id: 1001, gross: "10.00", reversed: "40.00" },
        { id: 1002, gross: "5.00" },
        { id: 1003, gross: "0.00", reversed: "30.00" },
      ],
    });
    await insertSnapshot(db, {
      window: "2026-03",
      recipients: [
        { id: 1001, gross: "20.00" },
        { id: 1003, gross: "45.00" },
        { id: 1004, gross: "100.00" },
      ],
    });
    await insertSnapshot(db, { window: "2026-04", recipients: [{ id: 1001, gross: "60.00" }] });

    const jan = await payWindow(db, "2026-01");
    expect(byRecipient(jan, 1001)).toMatchObject({
      state: "paid",
      payableUsd: "50.00",
      paidAmountUsd: "50.00",
      carryOutUsd: "0.00",
    });
    expect(byRecipient(jan, 1002)).toMatchObject({ state: "carried", payableUsd: "0.00", carryOutUsd: "8.00" });
    expect(byRecipient(jan, 1003)).toMatchObject({ state: "paid", paidAmountUsd: "30.00" });
    await expectInvariant(db);

    const feb = await payWindow(db, "2026-02");
    expect(byRecipient(feb, 1001)).toMatchObject({
      state: "carried",
      netAttributedUsd: "-30.00",
      carriedInUsd: "0.00",
      carryOutUsd: "-30.00",
    });
    expect(byRecipient(feb, 1002)).toMatchObject({
      state: "paid",
      netAttributedUsd: "5.00",
      carriedInUsd: "8.00",
      paidAmountUsd: "13.00",
    });
    expect(byRecipient(feb, 1003)).toMatchObject({
      state: "carried",
      netAttributedUsd: "-30.00",
      carryOutUsd: "-30.00",
    });
    await expectInvariant(db);

    const mar = await payWindow(db, "2026-03", { hold: [1004] });
    expect(byRecipient(mar, 1001)).toMatchObject({
      state: "carried",
      carriedInUsd: "-30.00",
      availableUsd: "-10.00",
      carryOutUsd: "-10.00",
    });
    expect(byRecipient(mar, 1003)).toMatchObject({ state: "paid", carriedInUsd: "-30.00", paidAmountUsd: "15.00" });
    expect(byRecipient(mar, 1004)).toMatchObject({
      state: "held",
      holdReason: "Tax form missing",
      payableUsd: "100.00",
    });
    // A held statement is not closed: it counts on neither side until it is paid.
    await expectInvariant(db);
    const d = (await checkLedgerInvariant(db, { gameId: GAME, recipientPlayerId: 1004 })).rows;
    expect(d).toEqual([]);

    const apr = await payWindow(db, "2026-04");
    expect(byRecipient(apr, 1001)).toMatchObject({ state: "paid", carriedInUsd: "-10.00", paidAmountUsd: "50.00" });
    await expectInvariant(db);

    // Releasing the hold (by someone other than the preparer) and paying it closes the last statement.
    const held = byRecipient(mar, 1004);
    await releaseStatements(
      db,
      { gameId: GAME, batchId: held.batchId, ids: [held.id], reason: "Tax form received" },
      web(approver),
    );
    await markStatementsPaid(
      db,
      {
        gameId: GAME,
        batchId: held.batchId,
        ids: [held.id],
        paidOn: "2026-04-15",
        method: "wise",
        reference: "WISE-1004",
      },
      web(approver),
    );
    await expectInvariant(db);

    const report = await checkLedgerInvariant(db, { gameId: GAME });
    const rows = Object.fromEntries(report.rows.map((r) => [r.recipientPlayerId, r]));
    // A: nets 50 − 30 + 20 + 60 = 100; paid 50 + 50; nothing carried.
    expect(rows[1001]).toMatchObject({
      windows: 4,
      netAttributedUsd: "100.00",
      paidUsd: "100.00",
      carriedUsd: "0.00",
      ok: true,
    });
    expect(rows[1002]).toMatchObject({ windows: 2, netAttributedUsd: "13.00", paidUsd: "13.00", carriedUsd: "0.00" });
    expect(rows[1003]).toMatchObject({ windows: 3, netAttributedUsd: "45.00", paidUsd: "45.00", carriedUsd: "0.00" });
    expect(rows[1004]).toMatchObject({ windows: 1, netAttributedUsd: "100.00", paidUsd: "100.00" });
  });

  it("ledger entries of every closed statement add up to zero, and payments match the statements", async () => {
    const entries = await listLedgerEntries(db, { gameId: GAME });
    const byStatement = new Map<string, string[]>();
    for (const e of entries) byStatement.set(e.statementId, [...(byStatement.get(e.statementId) ?? []), e.amountUsd]);
    expect(byStatement.size).toBeGreaterThan(0);
    for (const [, amounts] of byStatement) expect(sumMoney(amounts).toFixed(2)).toBe("0.00");
    const payments = entries.filter((e) => e.kind === "payment");
    expect(sumMoney(payments.map((e) => e.amountUsd)).toFixed(2)).toBe("-258.00");
    expect(entries.filter((e) => e.kind === "rollover").map((e) => [e.recipientPlayerId, e.amountUsd])).toEqual([
      [1002, "-8.00"],
    ]);
    const carryIns = entries.filter((e) => e.kind === "carry_in");
    const carryOuts = entries.filter((e) => e.kind === "carry_out" || e.kind === "rollover");
    expect(
      sumMoney(carryIns.map((e) => e.amountUsd))
        .plus(sumMoney(carryOuts.map((e) => e.amountUsd)))
        .toFixed(2),
    ).toBe("0.00");
    expect(entries.every((e) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(e.at))).toBe(true);
    const janOnly = await listLedgerEntries(db, {
      gameId: GAME,
      batchId: entries.find((e) => e.windowStart === "2026-01-01T00:00:00Z")?.batchId,
    });
    expect(new Set(janOnly.map((e) => e.windowStart))).toEqual(new Set(["2026-01-01T00:00:00Z"]));
  });

  it("notices a broken carry link: the check is not true by construction", async () => {
    const link = await db
      .selectFrom("payout_carry")
      .select(["from_statement_id", "to_statement_id", "amount_usd"])
      .limit(1)
      .executeTakeFirstOrThrow();
    await db.deleteFrom("payout_carry").where("from_statement_id", "=", link.from_statement_id).execute();
    try {
      const report = await checkLedgerInvariant(db, { gameId: GAME });
      expect(report.ok).toBe(false);
      expect(report.violations[0]?.problems.join(" ")).toMatch(/carried in/);
    } finally {
      await db.insertInto("payout_carry").values(link).execute();
    }
    await expectInvariant(db);
  });

  it("knows which periods a paid statement covered", async () => {
    const line = await db
      .selectFrom("snapshot_line as l")
      .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
      .select(["l.period_id", "l.recipient_player_id"])
      .where("s.window_start", "=", new Date(monthWindow("2026-01").startMs))
      .orderBy("l.period_id")
      .execute();
    const paidLine = line.find((l) => l.recipient_player_id === "1001");
    const rolledLine = line.find((l) => l.recipient_player_id === "1002");
    expect(await wasRecipientPaidFor(db, GAME, Number(paidLine?.period_id))).toBe(true);
    // Recipient 1002 was not paid in January (the amount rolled over).
    expect(await wasRecipientPaidFor(db, GAME, Number(rolledLine?.period_id))).toBe(false);
    expect(await wasRecipientPaidFor(db, "another-game", Number(paidLine?.period_id))).toBe(false);
  });

  it("takes the service's figures past the cent in whole cents, gross and reversed apart, and checks so", async () => {
    // Each figure rounded alone, then net = gross − reversed: what the statement shows adds up, and the batch's
    // constraint (net = gross − reversed) holds. Rounding the exact net instead gave 10.00 beside 10.01 − 0.00.
    await insertSnapshot(db, {
      window: "2026-07",
      recipients: [
        { id: 2001, gross: "10.006", reversed: "0.004" },
        { id: 2002, gross: "10.004", reversed: "0.006" },
        // Under the minimum exactly, 10.00 once rounded: paid, as its statement shows 10.00 available.
        { id: 2003, gross: "9.996" },
      ],
    });
    const jul = await payWindow(db, "2026-07");
    expect(byRecipient(jul, 2001)).toMatchObject({
      grossAttributedUsd: "10.01",
      reversedAttributedUsd: "0.00",
      netAttributedUsd: "10.01",
      paidAmountUsd: "10.01",
    });
    expect(byRecipient(jul, 2002)).toMatchObject({
      grossAttributedUsd: "10.00",
      reversedAttributedUsd: "0.01",
      netAttributedUsd: "9.99",
      state: "carried",
      carryOutUsd: "9.99",
    });
    expect(byRecipient(jul, 2003)).toMatchObject({ availableUsd: "10.00", state: "paid", paidAmountUsd: "10.00" });
    // The ledger check compares the statement with the snapshot in the same cents: no difference it cannot show.
    await expectInvariant(db);
  });
});
