import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { countPaymentStates, listPayoutTable, summarizeBatch } from "@/db/queries/payouts";
import { prepareMonth, settleBatch, setUpPayoutsDatabase } from "../support/payouts";
import { actor, GAME, insertSnapshot, web } from "./fixtures";

/**
 * A batch's counts per state (the window page's summary and its table's total) come from a tally the database keeps
 * as statements change; at every step it equals a count of the statements themselves.
 */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

async function counted(batchId: string) {
  const rows = await sql<{ state: string; n: string; payable: string; flagged: string }>`select state,
      count(*)::text as n, coalesce(sum(payable_usd), 0)::text as payable,
      count(*) filter (where jsonb_array_length(recipient_flags) > 0)::text as flagged
    from payout_statement where batch_id = ${batchId} group by state`.execute(db);
  return rows.rows;
}

async function expectTallyMatches(batchId: string) {
  const summary = await summarizeBatch(db, { gameId: GAME, batchId });
  const rows = await counted(batchId);
  let total = 0;
  let flagged = 0;
  for (const r of rows) {
    expect(summary.byState[r.state as keyof typeof summary.byState].count, r.state).toBe(Number(r.n));
    expect(Number(summary.byState[r.state as keyof typeof summary.byState].payableUsd), r.state).toBe(
      Number(r.payable),
    );
    total += Number(r.n);
    flagged += Number(r.flagged);
  }
  expect(summary.total).toBe(total);
  expect(summary.flagged).toBe(flagged);
  const payment = await sql<{ in_payment: string; payable: string }>`select
      count(*) filter (where state = 'in_payment')::text as in_payment,
      count(*) filter (where state in ('approved', 'returned') and payable_usd <> 0)::text as payable
    from payout_statement where batch_id = ${batchId}`.execute(db);
  expect(await countPaymentStates(db, { gameId: GAME, batchId })).toEqual({
    inPayment: Number(payment.rows[0]?.in_payment),
    payable: Number(payment.rows[0]?.payable),
  });
  const table = await listPayoutTable(db, {
    gameId: GAME,
    snapshotId: "",
    batchId,
    sort: "recipient",
    dir: "asc",
    page: 1,
    pageSize: 2,
  });
  expect(table.total).toBe(total);
  for (const r of rows) {
    const byState = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId: "",
      batchId,
      sort: "recipient",
      dir: "asc",
      state: r.state as "draft",
      page: 1,
      pageSize: 2,
    });
    expect(byState.total, r.state).toBe(Number(r.n));
  }
  return summary;
}

describe("a batch's tally", () => {
  it("equals a count of its statements after preparing, holding, approving and paying", async () => {
    await insertSnapshot(db, {
      window: "2026-04",
      recipients: [
        { id: 1, gross: "40.00" },
        { id: 2, gross: "30.00" },
        { id: 3, gross: "5.00" },
        { id: 4, gross: "0.00", reversed: "12.00" },
        { id: 5, gross: "25.50", resolved: false },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-04", web(actor("preparer")));
    const prepared = await expectTallyMatches(batchId);
    expect(prepared.byState.draft.count).toBe(5);

    const paidByWise = { on: "2026-05-03", method: "wise" as const, reference: "WISE-APR" };
    const plan = { hold: [2, 5], holdReason: "Bank details bounced", approve: [1, 3, 4], paid: paidByWise };
    // The tally is checked after each step: holding, approving statements, approving the batch, paying.
    const steps: string[] = [];
    await settleBatch(db, { batchId, month: "2026-04" }, plan, async (step) => {
      steps.push(step);
      const summary = await expectTallyMatches(batchId);
      if (step !== "batch approved") return;
      expect((await countPaymentStates(db, { gameId: GAME, batchId })).payable).toBeGreaterThan(0);
      expect(summary.byState.approved.count).toBeGreaterThan(0);
    });
    // Every step ran its check, the batch's approval among them.
    expect(steps).toContain("batch approved");
    expect(steps.length).toBeGreaterThanOrEqual(4);
    const paid = await expectTallyMatches(batchId);
    expect(paid.byState.paid.count).toBeGreaterThan(0);
    // Another game's caller sees nothing of it.
    expect((await summarizeBatch(db, { gameId: "another-game", batchId })).total).toBe(0);
  });
});
