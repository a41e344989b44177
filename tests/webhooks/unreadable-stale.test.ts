import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { stopBoss } from "../../lib/jobs/queue";
import { processWebhookEvent } from "../../lib/webhooks/process-event";
import { insertSnapshot } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { addGame, deliver, envelope, refundedData, type RouteHandler } from "./support";

/**
 * A refund or renewal the desk cannot read is kept, not processed: the window holding it is marked stale all the same,
 * by the event's own time, or a snapshot taken before it would be paid from as if nothing had changed.
 */
vi.mock("next/headers", () => import("../support/next-request"));

let t: TestDatabase;
let POST: RouteHandler;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "g-stale");
  ({ POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as { POST: RouteHandler });
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

const marks = () =>
  t.db.selectFrom("snapshot_stale_mark").select(["instant", "reason"]).where("game_id", "=", "g-stale").execute();

it("marks the window of a refund it cannot read stale, by the event's time, once", async () => {
  const june = { window: "2026-06", recipients: [], fetchStartedAt: new Date("2026-07-01T01:00:00Z") };
  await insertSnapshot(t.db, june, "g-stale");
  // A refund whose time the desk cannot read: stored as unprocessable, and never processed.
  const odd = envelope({
    gameId: "g-stale",
    type: "subscription.refunded",
    createdAt: "2026-06-20T08:00:00Z",
    data: refundedData({ refunded_at: "20 June 2026", subscription_id: "SUB_1767225600_STALE001" }),
  });
  expect(await deliver(POST, { gameId: "g-stale", body: odd })).toMatchObject({ status: 200 });
  const events = await t.db.selectFrom("webhook_event").select("status").where("game_id", "=", "g-stale").execute();
  expect(events.map((e) => e.status)).toEqual(["unprocessable"]);
  expect(await marks()).toEqual([
    {
      instant: new Date("2026-06-20T08:00:00Z"),
      reason: "subscription.refunded SUB_1767225600_STALE001 (its data could not be read)",
    },
  ]);
  // Delivered again, it is a duplicate: no second mark (a mark newer than an override would undo it).
  expect(await deliver(POST, { gameId: "g-stale", body: odd })).toMatchObject({ body: { status: "duplicate" } });
  // Another kind it cannot read marks nothing.
  const cancel = envelope({ gameId: "g-stale", type: "subscription.canceled", data: { subscription_id: 5 } });
  expect(await deliver(POST, { gameId: "g-stale", body: cancel })).toMatchObject({ status: 200 });
  expect(await marks()).toHaveLength(1);
});

it("reads an event holding a NUL with the NUL replaced, and processes it as any other", async () => {
  // A NUL (JSON's \u0000) can be in neither a text column nor jsonb: the body is kept as sent, the rest read
  // without it.
  const body = envelope({
    gameId: "g-stale",
    type: "subscription.refunded",
    createdAt: "2026-06-21T09:00:00Z",
    data: refundedData({ refunded_at: "2026-06-21T08:59:00Z", subscription_id: "SUB_1767225600_NUL\u0000" }),
  });
  expect(await deliver(POST, { gameId: "g-stale", body })).toMatchObject({ status: 200, body: { status: "accepted" } });
  const event = await t.db
    .selectFrom("webhook_event")
    .select(["id", "status", "body", "subscription_id", "parse_issues", "occurred_at"])
    .where("game_id", "=", "g-stale")
    .where("body", "=", body)
    .executeTakeFirstOrThrow();
  expect(event).toMatchObject({
    status: "pending",
    body,
    subscription_id: "SUB_1767225600_NUL\uFFFD",
    parse_issues: null,
    occurred_at: new Date("2026-06-21T08:59:00Z"),
  });
  expect(await processWebhookEvent(t.db, String(event.id))).toBe("processed");
  expect(await marks()).toContainEqual({
    instant: new Date("2026-06-21T08:59:00Z"),
    reason: "subscription.refunded SUB_1767225600_NUL\uFFFD",
  });
});
