import { afterAll, beforeAll, expect, it } from "vitest";
import { getSnapshot } from "@/db/queries/snapshots";
import type { WebhookEventStatus } from "@/db/tables/webhooks";
import { windowFlagsOf } from "@/lib/payouts/flags";
import { insertSnapshot } from "../payouts/fixtures";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { addGame } from "./support";

/**
 * A refund or renewal is marked stale only once a worker processes it. Until then (a backlog, or a processing that
 * failed for good) the window it falls in is flagged stale all the same, or a version read before it would be
 * approved as if nothing had changed.
 */

const GAME = "g-unprocessed";
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
});
afterAll(async () => t?.drop());

let seq = 0;
async function received(
  type: string,
  occurredAt: string,
  receivedAt: string,
  status: WebhookEventStatus = "pending",
): Promise<string> {
  seq += 1;
  const row = await t.db
    .insertInto("webhook_event")
    .values({
      game_id: GAME,
      idempotency_key: `key-${seq}`,
      event_id: `evt-${seq}`,
      event_type: type,
      signed_with: "current",
      signature_timestamp: new Date(receivedAt),
      occurred_at: new Date(occurredAt),
      body: "{}",
      status,
      received_at: new Date(receivedAt),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return String(row.id);
}

it("flags a window stale while a refund or renewal in it, received after its read, is not processed", async () => {
  const june = await insertSnapshot(
    t.db,
    { window: "2026-06", recipients: [], fetchStartedAt: new Date("2026-07-01T01:00:00Z") },
    GAME,
  );
  // Each look reads the snapshot's header anew, as each view of the window does: its counts decide what is read next.
  const header = async () => {
    const snapshot = await getSnapshot(t.db, { gameId: GAME, snapshotId: june.id });
    if (!snapshot) throw new Error("the snapshot is there");
    return snapshot;
  };
  const stale = async () => (await windowFlagsOf(t.db, await header())).filter((f) => f.flag === "snapshot_stale");
  // The snapshot's own "Stale" (the overview's badge) says the same.
  const badge = async () => (await getSnapshot(t.db, { gameId: GAME, snapshotId: june.id }))?.stale;

  // Received before the read began (the read saw it), outside June, or not a change of the window's figures: nothing.
  await received("subscription.refunded", "2026-06-10T00:00:00Z", "2026-06-30T23:00:00Z");
  await received("subscription.refunded", "2026-07-02T00:00:00Z", "2026-07-02T00:00:01Z");
  await received("subscription.canceled", "2026-06-12T00:00:00Z", "2026-07-02T00:00:01Z");
  expect(await stale()).toEqual([]);
  expect(await badge()).toBeNull();

  await received("subscription.renewed", "2026-06-29T00:00:00Z", "2026-07-02T00:00:00Z");
  const failed = await received("subscription.refunded", "2026-06-15T00:00:00Z", "2026-07-03T00:00:00Z", "failed");
  expect(await stale()).toEqual([
    expect.objectContaining({
      recipientPlayerId: null,
      detail: "2 refund or renewal events received since this version was read, not processed yet (see Webhooks)",
      cause: `unprocessed_event:${failed}`,
      raisedAt: new Date("2026-07-03T00:00:00Z"),
    }),
  ]);
  expect(await badge()).toEqual({
    since: new Date("2026-07-02T00:00:00Z"),
    reason: "2 refund or renewal events not processed yet (see Webhooks)",
    marks: 0,
    waiting: 2,
  });

  // The latest processed, the other still waiting: the same flag (an override given for it still holds).
  await t.db.updateTable("webhook_event").set({ status: "processed" }).where("id", "=", failed).execute();
  expect(await stale()).toEqual([
    expect.objectContaining({
      detail: "1 refund or renewal event received since this version was read, not processed yet (see Webhooks)",
      cause: `unprocessed_event:${failed}`,
    }),
  ]);

  // Processed (their marks, if any, stand for them from here): no longer.
  await t.db.updateTable("webhook_event").set({ status: "processed" }).where("game_id", "=", GAME).execute();
  expect(await stale()).toEqual([]);
  expect(await badge()).toBeNull();
});
