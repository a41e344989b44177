import { afterAll, beforeAll, expect, it } from "vitest";
import { recordDisputeClosed, recordDisputeOpened } from "@/db/queries/disputes";
import { approvePayoutBatch, approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { readBatchFlags } from "@/lib/payouts/flags";
import { listDisputesOfBatch } from "@/lib/payouts/snapshot-disputes";
import { monthWindow } from "@/lib/time";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { actor, GAME, insertGame, insertSnapshot, storeDisputeEvent, web } from "./fixtures";

/**
 * Earnings under the minimum payout are carried into the next month's statement, unpaid. A chargeback on one of the
 * carried renewals stops the statement that pays it, as one on the month's own renewals does; one on a renewal an
 * earlier statement paid, or on a recipient carrying nothing, does not.
 */

let t: TestDatabase;
const preparer = actor("preparer");
const approver = actor("approver");

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await insertGame(t.db);
});
afterAll(async () => t?.drop());

async function dispute(disputeId: string, orderId: string) {
  await recordDisputeOpened(t.db, {
    gameId: GAME,
    disputeId,
    orderId,
    transactionId: `tx_${disputeId}`,
    reason: "fraudulent",
    usdAmount: "6.00",
    openedAt: new Date("2026-06-10T00:00:00Z"),
    eventId: `evt_${disputeId}`,
  });
}

async function approve(batchId: string) {
  await approveStatements(t.db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(approver));
  await approvePayoutBatch(t.db, { gameId: GAME, batchId }, web(approver));
}

async function preparedMonth(month: string, recipients: { id: number; gross: string; mintOrderId: string }[]) {
  await insertSnapshot(t.db, { window: month, recipients });
  const { batchId } = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
  const batch = await t.db
    .selectFrom("payout_batch")
    .select("snapshot_id")
    .where("id", "=", batchId)
    .executeTakeFirstOrThrow();
  return { batchId, snapshotId: batch.snapshot_id };
}

it("flags the statement paying a carried renewal whose chargeback is open, then lost; approval waits", async () => {
  // April: 3 earns 6.00 (carried, under 10.00), 5 earns 40.00 (paid); two months carried for 7.
  const april = await preparedMonth("2026-04", [
    { id: 3, gross: "6.00", mintOrderId: "ord_apr_3" },
    { id: 5, gross: "40.00", mintOrderId: "ord_apr_5" },
    { id: 7, gross: "2.00", mintOrderId: "ord_apr_7" },
  ]);
  await approve(april.batchId);
  const may = await preparedMonth("2026-05", [
    { id: 5, gross: "30.00", mintOrderId: "ord_may_5" },
    { id: 7, gross: "3.00", mintOrderId: "ord_may_7" },
  ]);
  await approve(may.batchId);
  // June pays 3's April (6.00 + 8.00) and 7's April and May (2.00 + 3.00 + 9.00); 5's April was paid in April.
  const june = await preparedMonth("2026-06", [
    { id: 3, gross: "8.00", mintOrderId: "ord_jun_3" },
    { id: 5, gross: "20.00", mintOrderId: "ord_jun_5" },
    { id: 7, gross: "9.00", mintOrderId: "ord_jun_7" },
  ]);
  const carried = await t.db
    .selectFrom("payout_statement")
    .select(["recipient_player_id", "carried_in_usd"])
    .where("batch_id", "=", june.batchId)
    .orderBy("recipient_player_id")
    .execute();
  expect(carried.map((s) => [Number(s.recipient_player_id), s.carried_in_usd])).toEqual([
    [3, "6.00"],
    [5, "0.00"],
    [7, "5.00"],
  ]);

  await dispute("dp_apr_3", "ord_apr_3");
  await dispute("dp_apr_5", "ord_apr_5"); // paid in April: nothing of it is paid again in June
  await dispute("dp_apr_7", "ord_apr_7"); // carried twice: April into May, May into June
  const flags = async () =>
    (await readBatchFlags(t.db, { gameId: GAME, ...june })).disputes.map((f) => [
      f.recipientPlayerId,
      f.cause,
      f.detail,
    ]);
  expect(await flags()).toEqual([
    [3, "dispute:dp_apr_3:open", expect.stringMatching(/open on period .*, its earnings carried in from April 2026$/)],
    [7, "dispute:dp_apr_7:open", expect.stringMatching(/carried in from April 2026$/)],
  ]);
  // April's own batch still names its own disputes, not carried ones; one recipient's read names only theirs.
  expect((await listDisputesOfBatch(t.db, { gameId: GAME, ...april })).map((d) => d.carriedFrom)).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
  expect(
    (await listDisputesOfBatch(t.db, { gameId: GAME, ...june, recipientPlayerId: 7 })).map((d) => d.disputeId),
  ).toEqual(["dp_apr_7"]);

  // Approval holds back 3 and 7 and approves 5.
  const approved = await approveStatements(
    t.db,
    { gameId: GAME, batchId: june.batchId, all: "draft_unflagged" },
    web(approver),
  );
  expect(approved.changed).toBe(1);

  // Overridden while open, then lost: the loss is a new cause, flagged again.
  await overrideFlag(
    t.db,
    {
      gameId: GAME,
      batchId: june.batchId,
      flag: "disputed_renewal",
      recipientPlayerId: 3,
      cause: "dispute:dp_apr_3:open",
      reason: "Cardholder confirmed the charge by phone",
    },
    web(approver),
  );
  await recordDisputeClosed(t.db, {
    gameId: GAME,
    disputeId: "dp_apr_3",
    orderId: "ord_apr_3",
    status: "lost",
    currencyDebited: "60",
    closedAt: new Date("2026-06-20T00:00:00Z"),
    eventId: "evt_dp_apr_3_lost",
  });
  expect((await flags()).map(([recipient, cause]) => [recipient, cause])).toEqual([
    [3, "dispute:dp_apr_3:lost"],
    [7, "dispute:dp_apr_7:open"],
  ]);

  // A loss whose event waits to be processed (a backlog, or its processing failed) flags the carried renewal lost
  // already, as it does the month's own: an override of it open holds no more.
  const loss = { order_id: "ord_apr_7", dispute_id: "dp_apr_7", dispute_status: "lost", currency_debited: "20" };
  await storeDisputeEvent(t.db, loss, "pending", "2026-06-21T00:00:00Z");
  expect((await flags()).map(([recipient, cause]) => [recipient, cause])).toEqual([
    [3, "dispute:dp_apr_3:lost"],
    [7, "dispute:dp_apr_7:lost"],
  ]);
});
