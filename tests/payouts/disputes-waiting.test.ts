import { afterAll, beforeAll, expect, it } from "vitest";
import { recordDisputeOpened } from "@/db/queries/disputes";
import type { WebhookEventStatus } from "@/db/tables/webhooks";
import { approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { readBatchFlags } from "@/lib/payouts/flags";
import { monthWindow } from "@/lib/time";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { actor, GAME, insertGame, insertSnapshot, storeDisputeEvent, web } from "./fixtures";

/**
 * A chargeback is recorded once its `purchase.disputed` event is processed. While the event waits (a backlog) or after
 * its processing failed, the renewal it names is flagged all the same, as the dispute will be, or its recipient would
 * be approved and paid as if nothing had happened.
 */

let t: TestDatabase;
const preparer = actor("preparer");

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await insertGame(t.db);
});
afterAll(async () => t?.drop());

const received = (data: Record<string, unknown>, status: WebhookEventStatus) => storeDisputeEvent(t.db, data, status);

const opening = (disputeId: string, orderId: string) => ({
  order_id: orderId,
  dispute_id: disputeId,
  transaction_id: "tx_1",
  reason: "fraudulent",
  usd_amount: "10.00",
});

it("flags a renewal whose chargeback event is not processed yet, by the cause its dispute will have", async () => {
  await insertSnapshot(t.db, {
    window: "2026-09",
    recipients: [
      { id: 3, gross: "35.00", mintOrderId: "ord_3" },
      { id: 5, gross: "30.00", mintOrderId: "ord_5" },
    ],
  });
  const { batchId } = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-09") }, web(preparer));
  const snapshotId = (
    await t.db.selectFrom("payout_batch").select("snapshot_id").where("id", "=", batchId).executeTakeFirstOrThrow()
  ).snapshot_id;
  const disputes = async () =>
    (await readBatchFlags(t.db, { gameId: GAME, batchId, snapshotId })).disputes.map((f) => [
      f.recipientPlayerId,
      f.cause,
    ]);

  // Processed, of a renewal of no line here, a close, or not readable as an opening: nothing.
  await received(opening("dp_done", "ord_3"), "processed");
  await received(opening("dp_elsewhere", "ord_other"), "pending");
  await received({ order_id: "ord_3", dispute_id: "dp_closing", dispute_status: "won" }, "pending");
  await received({ order_id: "ord_3" }, "failed");
  expect(await disputes()).toEqual([]);

  const waiting = await received(opening("dp_5", "ord_5"), "pending");
  await received(opening("dp_3", "ord_3"), "failed");
  expect(await disputes()).toEqual([
    [3, "dispute:dp_3:open"],
    [5, "dispute:dp_5:open"],
  ]);
  // Approval holds them back as it would a recorded dispute.
  const approved = await approveStatements(t.db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
  expect(approved.changed).toBe(0);

  // Processed: the recorded dispute stands for it, under the same cause, once.
  await recordDisputeOpened(t.db, {
    gameId: GAME,
    disputeId: "dp_5",
    orderId: "ord_5",
    transactionId: "tx_1",
    reason: "fraudulent",
    usdAmount: "10.00",
    openedAt: new Date(),
    eventId: "evt_wait_6",
  });
  await t.db.updateTable("webhook_event").set({ status: "processed" }).where("id", "=", waiting).execute();
  expect(await disputes()).toEqual([
    [3, "dispute:dp_3:open"],
    [5, "dispute:dp_5:open"],
  ]);

  // Lost, the loss waiting (or failed): flagged lost, a cause an override of the open dispute does not cover; a loss
  // of a dispute neither recorded nor waiting to open is flagged too.
  await received({ order_id: "ord_5", dispute_id: "dp_5", dispute_status: "lost", currency_debited: "0" }, "pending");
  await received({ order_id: "ord_3", dispute_id: "dp_7", dispute_status: "lost" }, "failed");
  expect(await disputes()).toEqual([
    [3, "dispute:dp_3:open"],
    [3, "dispute:dp_7:lost"],
    [5, "dispute:dp_5:lost"],
  ]);
});
