import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveStatements, discardPayoutBatch, preparePayoutBatch } from "@/lib/payouts/batches";
import { monthWindow } from "@/lib/time";
import { addGame, insertSnapshot, type ReversalInput } from "../exports/fixture";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

/**
 * The service reports a reversal it knows only from the period row ("period_row = coarse fallback, reported wholly in
 * the window of the latest refund"): refunded again later, the whole reversal moves to the later window, the part a
 * batch of the earlier window deducted included. Preparing the later window flags the recipient instead of deducting
 * that part a second time unseen.
 */

const GAME = "reported-again";
const acting = { actor: { id: "u-prep", email: "prep@payout-desk.test" }, via: "web" as const };
let t: TestDatabase;

const reversal = (periodId: number, recipientId: number, usd: string, basis: ReversalInput["basis"]) => ({
  periodId,
  recipientId,
  reversedAttributedUsd: usd,
  basis,
  events: [],
});

const month = (key: string, reversals: ReversalInput[]) => {
  const w = monthWindow(key);
  return insertSnapshot(t.db, {
    gameId: GAME,
    start: new Date(w.startMs).toISOString(),
    end: new Date(w.endMs).toISOString(),
    recipients: [1, 2, 3].map((id) => ({ id, name: `R${id}`, email: `r${id}@example.test`, net: "50.00" })),
    lines: [],
    reversals,
  });
};

async function flagsOf(batchId: string): Promise<Record<string, string[]>> {
  const rows = await t.db
    .selectFrom("payout_statement")
    .select(["recipient_player_id", "recipient_flags"])
    .where("batch_id", "=", batchId)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.recipient_player_id, r.recipient_flags]));
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
});
afterAll(async () => t?.drop());

describe("a reversal known only from its period row, reported again in a later window", () => {
  it("flags the recipient whose reversal a batch of another window deducted, and no one else", async () => {
    // February: recipient 1's period 77 reversed by period row, recipient 2's period 78 by receipts.
    await month("2026-02", [reversal(77, 1, "2.00", "period_row"), reversal(78, 2, "1.00", "refund_receipts")]);
    const february = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-02") }, acting);
    expect(Object.values(await flagsOf(february.batchId)).flat()).toEqual([]);

    // April: both periods refunded again; period 77's whole reversal (2.00 deducted in February, and 3.00) moves here.
    // Recipient 3's period 79 is reversed by period row for the first time.
    await month("2026-04", [
      reversal(77, 1, "5.00", "period_row"),
      reversal(78, 2, "0.50", "refund_receipts"),
      reversal(79, 3, "1.00", "period_row"),
    ]);
    const april = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-04") }, acting);
    expect(await flagsOf(april.batchId)).toEqual({ "1": ["reversal_reported_again"], "2": [], "3": [] });
    // The flag stands on the statement: approving it skips it, saying why, until it is held or overridden.
    const first = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", april.batchId)
      .where("recipient_player_id", "=", "1")
      .executeTakeFirstOrThrow();
    const approved = await approveStatements(t.db, { gameId: GAME, batchId: april.batchId, ids: [first.id] }, acting);
    expect(approved).toEqual({
      changed: 0,
      revision: expect.any(String),
      skipped: [
        {
          id: first.id,
          recipientPlayerId: 1,
          name: "R1",
          reason: expect.stringMatching(/has open flags \(Reversal reported again/),
          flagged: true,
        },
      ],
    });

    // February's batch discarded: nothing deducted it before, and April prepared again raises nothing.
    await discardPayoutBatch(t.db, { gameId: GAME, batchId: april.batchId, reason: "prepare again" }, acting);
    await discardPayoutBatch(t.db, { gameId: GAME, batchId: february.batchId, reason: "not paid" }, acting);
    const again = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-04") }, acting);
    expect(Object.values(await flagsOf(again.batchId)).flat()).toEqual([]);
  });
});
