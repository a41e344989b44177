import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  carryStatementsForward,
  holdStatements,
  markStatementsPaid,
  preparePayoutBatch,
  releaseStatements,
} from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { getPayoutBatch, listLedgerEntries, listPayoutStatements } from "@/lib/payouts/ledger";
import { money, sumMoney } from "@/lib/money";
import {
  approver,
  payWindow,
  prepareMonth,
  preparer,
  recipientStatement as of,
  settleBatch,
  setUpPayoutsDatabase,
} from "../support/payouts";
import { monthWindow } from "@/lib/time";
import { web, GAME, insertSnapshot } from "./fixtures";

/**
 * A held statement of a paid batch is never stuck: released and paid in its own batch when nothing blocks it, or
 * carried forward whole into the recipient's next statement when its flags can no longer be overridden.
 */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

/** Prepares a month, holds the given recipients, approves the rest, has the batch approved and paid. */
async function payWithHolds(month: string, hold: number[]): Promise<string> {
  const [statement] = await payWindow(db, month, { hold });
  if (!statement) throw new Error(`no statements in ${month}`);
  return statement.batchId;
}

describe("held statements of a paid batch", () => {
  it("carries a flagged hold forward whole into the recipient's next statement, keeping the invariant", async () => {
    await insertSnapshot(db, {
      window: "2027-01",
      recipients: [
        { id: 7001, gross: "50.00", resolved: false },
        { id: 7002, gross: "30.00" },
      ],
    });
    const batchId = await payWithHolds("2027-01", [7001]);
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("paid");
    const held = of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7001);
    expect(held).toMatchObject({ state: "held", payableUsd: "50.00" });

    // Releasing cannot succeed (the flag is open) and overriding is over (the batch is paid): the way out is carrying
    // it.
    const release = await releaseStatements(
      db,
      { gameId: GAME, batchId, ids: [held.id], reason: "Recipient confirmed" },
      web(approver),
    );
    expect(release.changed).toBe(0);
    expect(release.skipped.map((s) => s.reason)).toEqual(["has open flags (Unresolved recipient)"]);
    await expect(
      overrideFlag(
        db,
        {
          gameId: GAME,
          batchId,
          flag: "unresolved_recipient",
          recipientPlayerId: 7001,
          reason: "Recipient confirmed by email",
        },
        web(approver),
      ),
    ).rejects.toThrow(/paid/);

    const carried = await carryStatementsForward(
      db,
      { gameId: GAME, batchId, ids: [held.id], reason: "Pay with next month once resolved" },
      web(preparer),
    );
    expect(carried).toEqual({ revision: expect.any(String), changed: 1, skipped: [] });
    const closed = of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7001);
    expect(closed).toMatchObject({
      state: "carried",
      payableUsd: "0.00",
      carryOutUsd: "50.00",
      availableUsd: "50.00",
      holdReason: null,
    });
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("paid");
    const entries = await listLedgerEntries(db, { gameId: GAME, batchId, recipientPlayerId: 7001 });
    expect(entries.map((e) => `${e.kind} ${e.amountUsd}`)).toEqual(["accrual 50.00", "rollover -50.00"]);
    expect(sumMoney(entries.map((e) => e.amountUsd)).isZero()).toBe(true);
    const report = await checkLedgerInvariant(db, { gameId: GAME });
    expect(report.violations).toEqual([]);
    expect(report.rows.find((r) => r.recipientPlayerId === 7001)).toMatchObject({
      paidUsd: "0.00",
      carriedUsd: "50.00",
      netAttributedUsd: "50.00",
    });

    // Carrying is a state action of held statements only, and only once.
    const again = await carryStatementsForward(
      db,
      {
        gameId: GAME,
        batchId,
        ids: [held.id, of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7002).id],
        reason: "Second try",
      },
      web(approver),
    );
    expect(again.changed).toBe(0);
    expect(again.skipped.map((s) => `${s.recipientPlayerId}: ${s.reason}`).sort()).toEqual([
      "7001: is carried forward",
      "7002: is paid",
    ]);

    // The next month takes the balance in, flagged: the hold's flags were open when it was carried. Overridden with
    // what was checked, it is paid with the month's own earnings.
    await insertSnapshot(db, { window: "2027-02", recipients: [{ id: 7001, gross: "5.00" }] });
    const { batchId: next } = await prepareMonth(db, "2027-02");
    const taking = of(await listPayoutStatements(db, { gameId: GAME, batchId: next }), 7001);
    expect(taking).toMatchObject({ carriedInUsd: "50.00", recipientFlags: ["carried_with_open_flags"] });
    const override = { gameId: GAME, batchId: next, flag: "carried_with_open_flags", recipientPlayerId: 7001 };
    await overrideFlag(db, { ...override, reason: "January's recipient resolved since: same player" }, web(approver));
    await settleBatch(db, { batchId: next, month: "2027-02" });
    const paid = of(await listPayoutStatements(db, { gameId: GAME, batchId: next }), 7001);
    expect(paid).toMatchObject({ state: "paid", carriedInUsd: "50.00", payableUsd: "55.00", paidAmountUsd: "55.00" });
    const after = await checkLedgerInvariant(db, { gameId: GAME, recipientPlayerId: 7001 });
    expect(after.violations).toEqual([]);
    expect(after.rows[0]).toMatchObject({ paidUsd: "55.00", carriedUsd: "0.00", netAttributedUsd: "55.00" });
  });

  it("releases an unflagged hold of a paid batch back to approved, reopening the batch until it is paid", async () => {
    await insertSnapshot(db, {
      window: "2027-03",
      recipients: [
        { id: 7101, gross: "40.00" },
        { id: 7102, gross: "20.00" },
      ],
    });
    const batchId = await payWithHolds("2027-03", [7101]);
    const held = of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7101);
    // Two-person rule: the preparer does not release a hold of an approved batch.
    await expect(
      releaseStatements(db, { gameId: GAME, batchId, ids: [held.id], reason: "Tax form received" }, web(preparer)),
    ).rejects.toThrow(/Two-person rule/);
    const released = await releaseStatements(
      db,
      { gameId: GAME, batchId, ids: [held.id], reason: "Tax form received" },
      web(approver),
    );
    expect(released.changed).toBe(1);
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("approved");
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, ids: [held.id], paidOn: "2027-04-02", method: "wise", reference: "WISE-7101" },
      web(approver),
    );
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("paid");
    expect(of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7101)).toMatchObject({
      state: "paid",
      paidAmountUsd: "40.00",
    });
    expect((await checkLedgerInvariant(db, { gameId: GAME })).violations).toEqual([]);
  });

  it("keeps every other figure frozen: only a held statement may turn its payable into a carry", async () => {
    const row = await db
      .selectFrom("payout_statement")
      .select(["id", "payable_usd", "available_usd"])
      .where("state", "=", "paid")
      .limit(1)
      .executeTakeFirstOrThrow();
    await expect(
      db
        .updateTable("payout_statement")
        .set({
          state: "carried",
          payable_usd: "0",
          carry_out_usd: row.available_usd,
          paid_amount_usd: null,
          paid_on: null,
        })
        .where("id", "=", row.id)
        .execute(),
    ).rejects.toThrow(/frozen/);
    expect(money(row.payable_usd).gt(0)).toBe(true);
  });
});

describe("a negative balance", () => {
  it("is not held: holding it is skipped with the reason, so approving carries it against later payouts", async () => {
    await insertSnapshot(db, { window: "2027-09", recipients: [{ id: 7301, gross: "10.00", reversed: "90.00" }] });
    const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow("2027-09") }, web(preparer));
    const owing = of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7301);
    expect(owing.availableUsd).toBe("-80.00");
    const held = await holdStatements(
      db,
      { gameId: GAME, batchId, ids: [owing.id], reason: "Waiting for the dispute" },
      web(preparer),
    );
    expect(held.changed).toBe(0);
    expect(held.skipped.map((s) => s.reason)).toEqual([
      "The recipient owes this balance: it is not held but carried forward against later payouts.",
    ]);
    expect(of(await listPayoutStatements(db, { gameId: GAME, batchId }), 7301).state).toBe("draft");
  });
});
