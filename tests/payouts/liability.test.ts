import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { returnPayment } from "@/lib/payments/returns";
import {
  approvePayoutBatch,
  approveStatements,
  carryStatementsForward,
  holdStatements,
  preparePayoutBatch,
} from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { listLiability, type LiabilityRow } from "@/lib/payouts/liability";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { payWindow, prepareMonth, setUpPayoutsDatabase } from "../support/payouts";
import { actor, web, GAME, insertSnapshot } from "./fixtures";

/**
 * Liability on an accrual basis: what was earned in windows that had ended by the day, and not yet paid, whatever had
 * been snapshotted or reviewed by then. The day after October closed, October's earnings are owed even though the
 * snapshot that reports them was taken weeks later.
 */

let db: Db;
const endOfDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);

setUpPayoutsDatabase((t) => {
  db = t.db;
});
beforeAll(async () => {
  // September, paid in full.
  await insertSnapshot(db, {
    window: "2026-09",
    recipients: [
      { id: 1, gross: "100.00" },
      { id: 2, gross: "50.00" },
    ],
  });
  await payWindow(db, "2026-09", { paid: { on: "2026-10-05", method: "wise", reference: "WISE-SEP" } });
  // October, snapshotted twice (the second version is the one to count): USD 4,921.81 earned.
  await insertSnapshot(db, {
    window: "2026-10",
    recipients: [
      { id: 1, gross: "4000.00" },
      { id: 2, gross: "900.00" },
    ],
  });
  await insertSnapshot(db, {
    window: "2026-10",
    recipients: [
      { id: 1, gross: "4000.00" },
      { id: 2, gross: "950.00", reversed: "28.19" },
    ],
  });
  // A window that has not ended whenever this runs: from yesterday to a month ahead.
  const now = Date.now();
  const open = { startMs: now - 86_400_000, endMs: now + 30 * 86_400_000 };
  await insertSnapshot(db, { window: open, recipients: [{ id: 1, gross: "70.00" }], closed: false });
});

async function byRecipient(asOf: Date): Promise<Record<number, LiabilityRow>> {
  const { rows } = await listLiability(db, { gameId: GAME, asOf });
  return Object.fromEntries(rows.map((r) => [r.recipientPlayerId, r]));
}

const total = (rows: Record<number, LiabilityRow>) =>
  Object.values(rows)
    .reduce((sum, r) => sum + Math.round(Number(r.totalOwedUsd) * 100), 0)
    .toString();

describe("liability as of a day (accrual)", () => {
  it("the day after October closed, October's earnings are owed, though its snapshot was taken later", async () => {
    const rows = await byRecipient(endOfDay("2026-11-01"));
    // As the records stood on November 1st, September was not paid yet either (its batch was prepared later).
    expect(rows[1]).toMatchObject({
      notInBatchUsd: "4100.00",
      draftUsd: "0.00",
      approvedUnpaidUsd: "0.00",
      totalOwedUsd: "4100.00",
    });
    expect(rows[2]).toMatchObject({ notInBatchUsd: "971.81", totalOwedUsd: "971.81" });
    const { windows } = await listLiability(db, { gameId: GAME, asOf: endOfDay("2026-11-01") });
    expect(
      windows.map((w) => [new Date(w.window.startMs).toISOString().slice(0, 7), w.source, w.snapshotVersion]),
    ).toEqual([
      ["2026-10", "snapshot", 2],
      ["2026-09", "snapshot", 1],
    ]);
  });

  it("a window that has not ended by the day is not earned yet", async () => {
    const rows = await byRecipient(endOfDay("2026-10-30"));
    expect(rows[1]).toMatchObject({ notInBatchUsd: "100.00", totalOwedUsd: "100.00" });
    expect(rows[2]).toMatchObject({ notInBatchUsd: "50.00" });
  });

  it("names a window whose snapshot was read before it ended: what was earned after the read is missing", async () => {
    const { windows } = await listLiability(db, { gameId: GAME, asOf: new Date(Date.now() + 40 * 86_400_000) });
    const read = (w: (typeof windows)[number]) => [
      new Date(w.window.startMs).toISOString().slice(0, 10),
      w.readBeforeEnd,
    ];
    const open = await db
      .selectFrom("snapshot")
      .select("window_start")
      .where("window_closed", "=", false)
      .executeTakeFirstOrThrow();
    expect(windows.map(read).sort()).toEqual([
      ["2026-09-01", false],
      ["2026-10-01", false],
      [open.window_start.toISOString().slice(0, 10), true],
    ]);
  });

  it("today: September paid is not owed; October is owed, split by the state of its statements", async () => {
    let rows = await byRecipient(new Date(Date.now() + 1000));
    expect(rows[1]).toMatchObject({ notInBatchUsd: "4000.00", totalOwedUsd: "4000.00" });
    expect(rows[2]).toMatchObject({ notInBatchUsd: "921.81", totalOwedUsd: "921.81" });
    expect(total(rows)).toBe("492181");

    const { batchId } = await prepareMonth(db, "2026-10", web(actor("preparer")));
    rows = await byRecipient(new Date(Date.now() + 1000));
    expect(rows[1]).toMatchObject({ notInBatchUsd: "0.00", draftUsd: "4000.00", totalOwedUsd: "4000.00" });
    expect(total(rows)).toBe("492181");

    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    const id = (recipient: number) => statements.find((s) => s.recipientPlayerId === recipient)?.id as string;
    await approveStatements(db, { gameId: GAME, batchId, ids: [id(1)] }, web(actor("preparer")));
    await holdStatements(
      db,
      { gameId: GAME, batchId, ids: [id(2)], reason: "Tax form missing" },
      web(actor("preparer")),
    );
    rows = await byRecipient(new Date(Date.now() + 1000));
    expect(rows[1]).toMatchObject({ approvedUnpaidUsd: "4000.00", draftUsd: "0.00", totalOwedUsd: "4000.00" });
    expect(rows[2]).toMatchObject({ heldUsd: "921.81", totalOwedUsd: "921.81" });
    expect(total(rows)).toBe("492181");
  });

  it("a payment counts from the day the money left (as in the ledger files), not from when recorded", async () => {
    // September's batch as if prepared and approved on 3 October, its payment (paid on 5 October) recorded on the 7th.
    const september = await db
      .selectFrom("payout_batch")
      .select("id")
      .where("window_start", "=", new Date("2026-09-01T00:00:00Z"))
      .executeTakeFirstOrThrow();
    // Neither is ever updated by the product (a trigger refuses it for events): the history is written back here, in
    // one transaction with that trigger off.
    await db.transaction().execute(async (trx) => {
      await sql`update payout_batch set prepared_at = '2026-10-03T09:00:00Z' where id = ${september.id}`.execute(trx);
      await sql`alter table payout_statement_event disable trigger payout_statement_event_no_update`.execute(trx);
      await sql`update payout_statement_event e
        set at = case when e.state_after = 'paid' then '2026-10-07T15:00:00Z'::timestamptz
          else '2026-10-03T10:00:00Z'::timestamptz end
        from payout_statement s where s.id = e.statement_id and s.batch_id = ${september.id}`.execute(trx);
      await sql`alter table payout_statement_event enable trigger payout_statement_event_no_update`.execute(trx);
    });

    const before = await byRecipient(endOfDay("2026-10-04"));
    expect(before[1]).toMatchObject({ approvedUnpaidUsd: "100.00", totalOwedUsd: "100.00" });
    expect(before[2]).toMatchObject({ approvedUnpaidUsd: "50.00", totalOwedUsd: "50.00" });
    // Paid on the 5th: nothing of September is owed at the end of that day, though the payment was recorded later.
    for (const day of ["2026-10-05", "2026-10-06"]) expect(await byRecipient(endOfDay(day))).toEqual({});
  });

  it("a payment that came back later still counts from the day it left, for the days before it came back", async () => {
    const september = await db
      .selectFrom("payout_statement as s")
      .innerJoin("payout_batch as b", "b.id", "s.batch_id")
      .select("s.id")
      .where("b.window_start", "=", new Date("2026-09-01T00:00:00Z"))
      .where("s.recipient_player_id", "=", "1")
      .executeTakeFirstOrThrow();
    await returnPayment(
      db,
      { gameId: GAME, statementId: september.id, reason: "the bank sent it back" },
      web(actor("returner")),
    );
    // A figure already reported for 5 October does not change; the return counts from when it was recorded.
    for (const day of ["2026-10-05", "2026-10-06"]) expect(await byRecipient(endOfDay(day))).toEqual({});
    const now = await byRecipient(new Date(Date.now() + 1000));
    expect(now[1]?.totalOwedUsd).toBe("4100.00");
  });

  it("a batch prepared before its window ended adds nothing, not even a balance it rolled over", async () => {
    const open = await db
      .selectFrom("snapshot")
      .select(["window_start", "window_end"])
      .where("window_end", ">", new Date())
      .executeTakeFirstOrThrow();
    const window = { startMs: open.window_start.getTime(), endMs: open.window_end.getTime() };
    await insertSnapshot(db, {
      window,
      recipients: [
        { id: 1, gross: "70.00" },
        { id: 5, gross: "5.00" },
      ],
      closed: false,
    });
    const preparer = web(actor("preparer"));
    // July, ended: recipient 5 earns under the minimum, rolled over at approval, taken in by the early batch below.
    await insertSnapshot(db, { window: "2026-07", recipients: [{ id: 5, gross: "3.00" }] });
    const july = await prepareMonth(db, "2026-07", preparer);
    await approveStatements(db, { gameId: GAME, batchId: july.batchId, all: "draft_unflagged" }, preparer);
    await approvePayoutBatch(db, { gameId: GAME, batchId: july.batchId }, web(actor("approver")));
    const [rolled] = await listPayoutStatements(db, { gameId: GAME, batchId: july.batchId });
    expect(rolled).toMatchObject({ recipientPlayerId: 5, state: "carried" });
    const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window }, preparer);
    const reason = "paying the month early, as agreed with the creators";
    await overrideFlag(db, { gameId: GAME, batchId, flag: "window_open", recipientPlayerId: null, reason }, preparer);
    // Recipient 1's September payment came back (above): confirmed with them before paying again.
    await overrideFlag(
      db,
      { gameId: GAME, batchId, flag: "payment_returned", recipientPlayerId: 1, reason: "details confirmed by phone" },
      web(actor("approver")),
    );
    const approved = await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, preparer);
    expect(approved.skipped).toEqual([]);
    await approvePayoutBatch(db, { gameId: GAME, batchId }, web(actor("approver")));
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    expect(statements.find((s) => s.recipientPlayerId === 5)).toMatchObject({ state: "carried" });
    // The window has not ended: what it earned, paid or rolled over, is not owed yet; what July rolled into it is.
    const rows = await byRecipient(new Date(Date.now() + 1000));
    expect(rows[5]).toMatchObject({ carriedUsd: rolled?.carryOutUsd, totalOwedUsd: rolled?.carryOutUsd });
    // June, ended, prepared after: it takes in what the early batch carried on, July's 3.00 with it. Owed once, in
    // June's draft, not again as July's rolled-over balance.
    await insertSnapshot(db, { window: "2026-06", recipients: [{ id: 5, gross: "50.00" }] });
    const june = await prepareMonth(db, "2026-06", preparer);
    const [juneStatement] = await listPayoutStatements(db, { gameId: GAME, batchId: june.batchId });
    expect(juneStatement).toMatchObject({ recipientPlayerId: 5, carriedInUsd: "8.00", availableUsd: "58.00" });
    const chained = await byRecipient(new Date(Date.now() + 1000));
    expect(chained[5]).toMatchObject({ draftUsd: "58.00", carriedUsd: "0.00", totalOwedUsd: "58.00" });
    // Once it has ended, the batch paid early counts, named as read before its window ended.
    const later = await listLiability(db, { gameId: GAME, asOf: new Date(window.endMs + 86_400_000) });
    const early = later.windows.find((w) => w.window.startMs === window.startMs);
    expect(early).toMatchObject({ source: "batch", readBeforeEnd: true });
  });

  it("a returned payment carried forward later leaves the figures of the days before it came back", async () => {
    const september = await db
      .selectFrom("payout_statement as s")
      .innerJoin("payout_batch as b", "b.id", "s.batch_id")
      .select(["s.id", "s.batch_id"])
      .where("b.window_start", "=", new Date("2026-09-01T00:00:00Z"))
      .where("s.recipient_player_id", "=", "1")
      .executeTakeFirstOrThrow();
    const target = { gameId: GAME, batchId: september.batch_id, ids: [september.id] };
    const finance = web(actor("approver"));
    await holdStatements(db, { ...target, reason: "asking the creator for new bank details" }, finance);
    await carryStatementsForward(db, { ...target, reason: "paid with a later month once confirmed" }, finance);
    // Paid on 5 October and still out then: nothing owed to recipient 1 on those days, as before the payment came
    // back (July's snapshot, taken since, counts recipient 5's earnings there).
    for (const day of ["2026-10-05", "2026-10-06"]) expect((await byRecipient(endOfDay(day)))[1]).toBeUndefined();
    // Today the whole balance is rolled over, owed until a later statement takes it in.
    const now = await byRecipient(new Date(Date.now() + 1000));
    expect(now[1]?.carriedUsd).toBe("100.00");
  });
});
