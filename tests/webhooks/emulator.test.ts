import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { getSnapshot } from "../../db/queries/snapshots";
import { getWebhookEvent } from "../../db/queries/webhook-events";
import { updateGameAutomation } from "../../db/queries/webhooks";
import type { RunningEmulator } from "../../emulator/server";
import { takeSnapshotNow } from "../../lib/snapshots/pull";
import { monthWindow } from "../../lib/time";
import { SECRET, SUB } from "../emulator/fixture";
import type { TestDatabase } from "../support/db";
import { setUpEmulatorWebhooks } from "./emulator-delivery";
import { waitFor } from "../support/wait";
import { startWebhookInsertOutage } from "./support";

vi.mock("next/headers", () => import("../support/next-request"));

/**
 * End to end: the emulator delivers signed webhooks over HTTP to a small server in this test that hands each request
 * to the route handler, against a test database, with the background workers running.
 */

const SIGNING_SECRET = "whsec_e2e_signing_1";
const JUNE = monthWindow("2026-06");

let t: TestDatabase;
let emulator: RunningEmulator;

async function refund(clientRequestId: string, amountUsd: string): Promise<void> {
  const response = await fetch(`${emulator.url}/api/subscriptions/${SUB.ninetyNine}/refund`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Game-Secret-Key": SECRET },
    body: JSON.stringify({ client_request_id: clientRequestId, amount_usd: amountUsd, reason: "test" }),
  });
  expect(response.status).toBe(200);
}

async function latestJuneSnapshot() {
  const row = await t.db
    .selectFrom("snapshot")
    .select("id")
    .where("game_id", "=", "g1")
    .where("window_start", "=", new Date(JUNE.startMs))
    .where("window_end", "=", new Date(JUNE.endMs))
    .orderBy("version", "desc")
    .executeTakeFirst();
  return row ? getSnapshot(t.db, { gameId: "g1", snapshotId: row.id }) : null;
}

function refundDeliveries(clientRequestId: string) {
  return emulator.runtime.dispatcher.deliveries.filter(
    (d) =>
      d.event_type === "subscription.refunded" &&
      (JSON.parse(d.body) as { data: { client_request_id: string } }).data.client_request_id === clientRequestId,
  );
}

setUpEmulatorWebhooks(
  {
    gameId: "g1",
    signingSecret: SIGNING_SECRET,
    beforeWorkers: (db) =>
      updateGameAutomation(db, "g1", { autoRefresh: true, pullPreviousMonth: false, pullCurrentMonthDaily: false }),
  },
  (running) => {
    ({ t, emulator } = running);
  },
);

describe("webhooks from the emulator", () => {
  it("a refund made in the service arrives signed, marks its window stale, and the re-pull clears it", async () => {
    const first = await takeSnapshotNow(t.db, { gameId: "g1", window: JUNE, requestedBy: null, via: "test" });
    expect(first.totals.refundEventsInWindow).toBe(0);
    expect((await latestJuneSnapshot())?.stale).toBeNull();

    // A refund attempt made from Payout Desk carries its client_request_id; the event links back to it.
    await t.db
      .insertInto("refund_attempt")
      .values({
        game_id: "g1",
        subscription_id: SUB.ninetyNine,
        period_seq: 4,
        amount_usd: "1.00",
        remaining_before_usd: "9.99",
        is_full: false,
        client_request_id: "pd-e2e-refund-1",
        intent_key: "intent-e2e-1",
        actor_email: "support@payout-desk.test",
      })
      .execute();
    await refund("pd-e2e-refund-1", "1.00");

    const event = await waitFor(async () => {
      const row = await t.db
        .selectFrom("webhook_event")
        .select(["id", "status"])
        .where("game_id", "=", "g1")
        .where("client_request_id", "=", "pd-e2e-refund-1")
        .executeTakeFirst();
      return row?.status === "processed" ? row : null;
    });
    const detail = await getWebhookEvent(t.db, "g1", event.id);
    expect(detail).toMatchObject({
      eventType: "subscription.refunded",
      signedWith: "current",
      subscriptionId: SUB.ninetyNine,
      refundAttempt: { amountUsd: "1.00", actorEmail: "support@payout-desk.test" },
      effect: expect.objectContaining({
        staleWindows: [{ start: "2026-06-01T00:00:00Z", end: "2026-07-01T00:00:00Z" }],
      }),
    });
    // The delivery reached us on the first try and was verified with our copy of the signing secret.
    expect(refundDeliveries("pd-e2e-refund-1").map((d) => d.attempts.map((a) => a.status_code))).toEqual([[200]]);

    // The first version is stale the moment the mark is written; the re-pull publishes a version that is not.
    const stale = await getSnapshot(t.db, { gameId: "g1", snapshotId: first.snapshotId });
    expect(stale?.stale).toMatchObject({ reason: `subscription.refunded ${SUB.ninetyNine}` });
    const fresh = await waitFor(async () => {
      const latest = await latestJuneSnapshot();
      return latest && latest.version > first.version ? latest : null;
    });
    expect(fresh.stale).toBeNull();
    expect(fresh.totals.refundEventsInWindow).toBe(1);
    const repulled = (await getWebhookEvent(t.db, "g1", event.id))?.effect;
    expect(repulled).toMatchObject({
      repullDue: false,
      repulls: [expect.objectContaining({ start: "2026-06-01T00:00:00Z" })],
    });
  });

  it("a delivery that meets a database outage answers non-2xx, is retried by the service and stored once", async () => {
    const outage = await startWebhookInsertOutage(t.db);
    try {
      await refund("pd-e2e-refund-2", "0.50");
      await waitFor(async () => refundDeliveries("pd-e2e-refund-2")[0]?.attempts[0]?.status_code === 503);
      expect(
        await t.db
          .selectFrom("webhook_event")
          .select("id")
          .where("client_request_id", "=", "pd-e2e-refund-2")
          .execute(),
      ).toEqual([]);
      await outage.end();

      const delivery = await waitFor(async () => {
        const found = refundDeliveries("pd-e2e-refund-2")[0];
        return found?.status === "delivered" ? found : null;
      });
      const codes = delivery.attempts.map((a) => a.status_code);
      expect(codes[0]).toBe(503);
      expect(codes.at(-1)).toBe(200);
      // Every try carried the same idempotency key; the event id header changed on each.
      expect(new Set(delivery.attempts.map((a) => a.event_id_header)).size).toBe(delivery.attempts.length);

      const stored = await t.db
        .selectFrom("webhook_event")
        .select(["id", "idempotency_key"])
        .where("client_request_id", "=", "pd-e2e-refund-2")
        .execute();
      expect(stored).toEqual([{ id: expect.any(String), idempotency_key: delivery.idempotency_key }]);

      // A replay of the delivered event (same key) is a duplicate: still one event.
      const triesBefore = delivery.attempts.length;
      const replay = await fetch(`${emulator.url}/__emulator/webhooks/deliveries/${delivery.delivery_id}/replay`, {
        method: "POST",
      });
      expect(replay.status).toBe(200);
      await waitFor(async () => {
        const again = refundDeliveries("pd-e2e-refund-2")[0];
        return again?.status === "delivered" && again.attempts.length > triesBefore ? again : null;
      });
      expect(refundDeliveries("pd-e2e-refund-2")[0]?.attempts.at(-1)?.status_code).toBe(200);
      expect(
        await t.db
          .selectFrom("webhook_event")
          .select("id")
          .where("client_request_id", "=", "pd-e2e-refund-2")
          .execute(),
      ).toHaveLength(1);
    } finally {
      await sql`drop trigger if exists outage on webhook_event`.execute(t.db);
    }
  });
});
