import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listSubscriptionEvents, listWebhookEvents } from "../../db/queries/webhook-events";
import { stopBoss } from "../../lib/jobs/queue";
import { monthWindow, parseInstant, type TimeWindow } from "../../lib/time";
import { processWebhookEvent } from "../../lib/webhooks/process-event";
import type { SnapshotLink } from "../../lib/webhooks/snapshot-link";
import { sweepWebhookEvents } from "../../lib/webhooks/sweep";
import { updateGameAutomation } from "../../db/queries/webhooks";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import {
  addAutomatedGame,
  addGame,
  deliver,
  envelope,
  recordingLink,
  refundedData,
  type RouteHandler,
} from "./support";

vi.mock("next/headers", () => import("../support/next-request"));

let t: TestDatabase;
let POST: RouteHandler;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as { POST: RouteHandler });
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

async function store(gameId: string, body: string): Promise<string> {
  const result = await deliver(POST, { gameId, body });
  expect(result).toMatchObject({ status: 200, body: { status: "accepted" } });
  return result.body.id as string;
}

/** The events the sweep queues again, ten minutes on; the drain it asks for is not run (events are processed here). */
async function sweep(): Promise<string[]> {
  const queued: string[] = [];
  await sweepWebhookEvents({
    nowMs: Date.now() + 600_000,
    queue: async (id) => void queued.push(id),
    drain: async () => {},
  });
  return queued;
}

async function row(id: string) {
  return t.db.selectFrom("webhook_event").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** An event time well inside a month (the envelope's default is a month's first instant). */
const MID_JUNE = "2026-06-10T12:00:00Z";

describe("processing stored events", () => {
  it(
    "subscription.refunded marks the window of the refund stale, " + "once, without a re-pull when auto-refresh is off",
    async () => {
      await addGame(t.db, "p1");
      const id = await store(
        "p1",
        envelope({
          gameId: "p1",
          type: "subscription.refunded",
          createdAt: "2026-05-31T23:59:59Z",
          data: refundedData(),
        }),
      );
      const { link, marks, pulls } = recordingLink();
      expect(await processWebhookEvent(t.db, id, link)).toBe("processed");
      expect(await processWebhookEvent(t.db, id, link)).toBe("already-done");
      expect(marks).toEqual([
        {
          gameId: "p1",
          instant: "2026-05-31T23:59:59.000Z",
          reason: "subscription.refunded SUB_1767225600_AAAA0002",
          detail: expect.objectContaining({ subscriptionId: "SUB_1767225600_AAAA0002", periodSeq: 4 }),
        },
      ]);
      expect(pulls).toEqual([]);
      const stored = await row(id);
      expect(stored.status).toBe("processed");
      expect(stored.effect).toMatchObject({
        kind: "staleness",
        instant: "2026-05-31T23:59:59Z",
        staleWindows: [{ start: "2026-05-01T00:00:00Z", end: "2026-06-01T00:00:00Z" }],
        autoRefresh: false,
        repullDue: false,
        clientRequestId: "pd-refund-1",
      });
    },
  );

  it("places a refund by its refunded_at when the event carries one", async () => {
    await addGame(t.db, "p2");
    const data = refundedData({ refunded_at: "2026-04-30T12:00:00Z" });
    const id = await store(
      "p2",
      envelope({ gameId: "p2", type: "subscription.refunded", createdAt: "2026-05-01T00:00:01Z", data }),
    );
    const { link, marks } = recordingLink();
    await processWebhookEvent(t.db, id, link);
    expect(marks[0]?.instant).toBe("2026-04-30T12:00:00.000Z");
  });

  it("marks the month before too when a refund placed by its event's time came just after midnight", async () => {
    await addAutomatedGame(t.db, "p2m", { autoRefresh: true });
    const at = (createdAt: string, data = refundedData()) =>
      store("p2m", envelope({ gameId: "p2m", type: "subscription.refunded", createdAt, data }));
    const { link, marks, pulls } = recordingLink();
    const id = await at("2026-06-01T00:02:00Z");
    await processWebhookEvent(t.db, id, link);
    const first = marks.map((m) => m.instant);
    // Both months pulled again, and the event owes nothing more: a pull of May reads the change May holds.
    expect(pulls.map((p) => p.window)).toEqual([
      "[2026-06-01T00:00:00Z, 2026-07-01T00:00:00Z)",
      "[2026-05-01T00:00:00Z, 2026-06-01T00:00:00Z)",
    ]);
    expect((await row(id)).effect).toMatchObject({ repullDue: false });
    expect(await sweep()).not.toContain(id);
    // Five minutes after or more, or placed by its own refunded_at: its month only.
    await processWebhookEvent(t.db, await at("2026-06-01T00:05:00Z"), link);
    await processWebhookEvent(
      t.db,
      await at("2026-06-01T00:02:00Z", refundedData({ refunded_at: "2026-06-01T00:01:00Z" })),
      link,
    );
    expect(first).toEqual(["2026-06-01T00:02:00.000Z", "2026-05-31T23:57:00.000Z"]);
    expect(marks.slice(2).map((m) => m.instant)).toEqual(["2026-06-01T00:05:00.000Z", "2026-06-01T00:01:00.000Z"]);
    // Just after another midnight, where a window given by dates may end: the instant before it too.
    await processWebhookEvent(t.db, await at("2026-06-15T00:02:00Z"), link);
    expect(marks.slice(4).map((m) => m.instant)).toEqual(["2026-06-15T00:02:00.000Z", "2026-06-14T23:57:00.000Z"]);
    // A renewal whose event carries no paid_at (the spec shows no field list of subscription.renewed) is placed by its
    // event's time the same way; with its paid_at, by that alone.
    const renewed = (paidAt?: string) =>
      store(
        "p2m",
        envelope({
          gameId: "p2m",
          type: "subscription.renewed",
          createdAt: "2026-07-01T00:02:00Z",
          data: { subscription_id: "SUB_1767225600_AAAA0003", period_seq: 2, ...(paidAt ? { paid_at: paidAt } : {}) },
        }),
      );
    await processWebhookEvent(t.db, await renewed(), link);
    await processWebhookEvent(t.db, await renewed("2026-07-01T00:01:00Z"), link);
    expect(marks.slice(6).map((m) => m.instant)).toEqual([
      "2026-07-01T00:02:00.000Z",
      "2026-06-30T23:57:00.000Z",
      "2026-07-01T00:01:00.000Z",
    ]);
    expect((await row(id)).effect).toMatchObject({
      instant: "2026-06-01T00:02:00Z",
      staleWindows: [
        { start: "2026-06-01T00:00:00Z", end: "2026-07-01T00:00:00Z" },
        { start: "2026-05-01T00:00:00Z", end: "2026-06-01T00:00:00Z" },
      ],
    });
  });

  it("with auto-refresh on, queues one re-pull per stale window, after the commit, and records it", async () => {
    await addGame(t.db, "p3");
    await updateGameAutomation(t.db, "p3", { autoRefresh: true, pullPreviousMonth: true, pullCurrentMonthDaily: true });
    const data = { subscription_id: "SUB_1767225600_AAAA0002", period_seq: 5, paid_at: "2026-06-10T00:00:00Z" };
    const id = await store(
      "p3",
      envelope({ gameId: "p3", type: "subscription.renewed", createdAt: "2026-06-10T00:00:00Z", data }),
    );
    const { link, pulls } = recordingLink();
    await processWebhookEvent(t.db, id, link);
    await processWebhookEvent(t.db, id, link);
    expect(pulls).toEqual([{ gameId: "p3", window: "[2026-06-01T00:00:00Z, 2026-07-01T00:00:00Z)", via: "webhook" }]);
    expect((await row(id)).effect).toMatchObject({
      repullDue: false,
      repulls: [{ start: "2026-06-01T00:00:00Z", end: "2026-07-01T00:00:00Z", pullId: "pull-1" }],
    });
  });

  it("a re-pull that cannot be queued is owed, and the next run (or the sweep) queues it", async () => {
    await addAutomatedGame(t.db, "p4", { autoRefresh: true });
    const id = await store(
      "p4",
      envelope({ gameId: "p4", type: "subscription.refunded", createdAt: MID_JUNE, data: refundedData() }),
    );
    const { link, pulls, marks } = recordingLink({ failPulls: 1 });
    await expect(processWebhookEvent(t.db, id, link)).rejects.toThrow("queue unavailable");
    expect(await row(id)).toMatchObject({ status: "processed", effect: expect.objectContaining({ repullDue: true }) });

    const queued = await sweep();
    expect(queued).toContain(id);

    expect(await processWebhookEvent(t.db, id, link)).toBe("already-done");
    expect(marks).toHaveLength(1);
    expect(pulls).toHaveLength(1);
    expect((await row(id)).effect).toMatchObject({ repullDue: false });
  });

  it("an event whose window's pull was already reading stays due until a pull reads after it", async () => {
    await addAutomatedGame(t.db, "p4r", { autoRefresh: true });
    const id = await store(
      "p4r",
      envelope({ gameId: "p4r", type: "subscription.refunded", createdAt: MID_JUNE, data: refundedData() }),
    );
    const { link, pulls, state } = recordingLink();
    state.reading = true;
    await processWebhookEvent(t.db, id, link);
    expect((await row(id)).effect).toMatchObject({
      repullDue: true,
      repulls: [expect.objectContaining({ pullId: "pull-1" })],
    });
    const queued = await sweep();
    expect(queued).toContain(id);

    // That pull has ended: the window's next pull reads after the event, and the event owes nothing more.
    state.reading = false;
    expect(await processWebhookEvent(t.db, id, link)).toBe("already-done");
    expect(pulls).toHaveLength(2);
    expect((await row(id)).effect).toMatchObject({
      repullDue: false,
      repulls: [expect.objectContaining({ pullId: "pull-2" })],
    });
  });

  it("an event just now in an open window stays due until a pull can read past it", async () => {
    await addAutomatedGame(t.db, "p4o", { autoRefresh: true });
    const at = new Date(Date.now() - 5_000);
    const body = envelope({
      gameId: "p4o",
      type: "subscription.refunded",
      createdAt: at.toISOString(),
      data: refundedData({ refunded_at: at.toISOString() }),
    });
    const id = await store("p4o", body);
    const recording = recordingLink();
    const { pulls } = recording;
    // Three whole days around the refund: a window open now, begun well over a minute ago.
    const startMs = Math.floor(at.getTime() / 86_400_000) * 86_400_000 - 86_400_000;
    const link: SnapshotLink = {
      ...recording.link,
      markStale: async () => [{ startMs, endMs: startMs + 3 * 86_400_000 }],
    };
    await processWebhookEvent(t.db, id, link);
    // A pull starting now reads the open window only up to a minute before it began: not this refund.
    expect((await row(id)).effect).toMatchObject({ repullDue: true, repulls: [expect.anything()] });

    // Three minutes later (by the database's clock, which pulls start on): the change lies three minutes back.
    const later = new Date(at.getTime() - 3 * 60_000).toISOString();
    await sql`update webhook_event set effect = jsonb_set(effect, '{instant}', to_jsonb(${later}::text))
      where id = ${id}`.execute(t.db);
    expect(await processWebhookEvent(t.db, id, link)).toBe("already-done");
    expect(pulls).toHaveLength(2);
    expect((await row(id)).effect).toMatchObject({ repullDue: false });
  });

  it("subscription.canceled changes nothing and shows on the subscription's event list", async () => {
    await addGame(t.db, "p5");
    const data = {
      subscription_id: "SUB_1767225600_CCCC0001",
      access_until: "2026-06-30T00:00:00Z",
      cancel_at_period_end: true,
      reason: "too pricey",
    };
    const id = await store("p5", envelope({ gameId: "p5", type: "subscription.canceled", data }));
    const { link, marks } = recordingLink();
    await processWebhookEvent(t.db, id, link);
    expect(marks).toEqual([]);
    expect((await row(id)).effect).toEqual({
      kind: "cancellation",
      accessUntil: "2026-06-30T00:00:00Z",
      cancelAtPeriodEnd: true,
    });

    const events = await listSubscriptionEvents(t.db, "p5", "SUB_1767225600_CCCC0001");
    expect(events).toEqual([
      expect.objectContaining({
        eventType: "subscription.canceled",
        status: "processed",
        data: expect.objectContaining({ access_until: "2026-06-30T00:00:00Z", reason: "too pricey" }),
      }),
    ]);
    expect(await listSubscriptionEvents(t.db, "p1", "SUB_1767225600_CCCC0001")).toEqual([]);
  });

  it("unknown types are stored and marked processed without effect", async () => {
    await addGame(t.db, "p6");
    const id = await store(
      "p6",
      envelope({ gameId: "p6", type: "purchase.completed", data: { order_id: "ord_1", usd_amount: "4.99" } }),
    );
    const { link, marks } = recordingLink();
    expect(await processWebhookEvent(t.db, id, link)).toBe("processed");
    expect(marks).toEqual([]);
    const listed = await listWebhookEvents(t.db, {
      gameId: "p6",
      filter: { eventType: "purchase.completed" },
      sort: "received_at",
      dir: "desc",
      limit: 10,
      offset: 0,
    });
    expect(listed.rows.map((r) => [r.eventType, r.status])).toEqual([["purchase.completed", "processed"]]);
  });

  it("an event another run holds past the wait is left to the sweep, uncounted, not waited on", async () => {
    await addGame(t.db, "p6b");
    const id = await store(
      "p6b",
      envelope({ gameId: "p6b", type: "purchase.completed", data: { order_id: "ord_2", usd_amount: "4.99" } }),
    );
    const { link } = recordingLink();
    // Another run's transaction holds the row (its host gone, the database not told yet).
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from webhook_event where id = $1 for update", [id]);
      expect(await processWebhookEvent(t.db, id, link, 200)).toBe("busy");
      expect(await row(id)).toMatchObject({ status: "pending", attempts: 0 });
      await holder.query("rollback");
    } finally {
      await holder.end();
    }
    expect(await processWebhookEvent(t.db, id, link, 200)).toBe("processed");
  });

  it("a failing effect is retried and, after the last try, shown as failed", async () => {
    await addGame(t.db, "p7");
    const id = await store("p7", envelope({ gameId: "p7", type: "subscription.refunded", data: refundedData() }));
    const failing: SnapshotLink = {
      markStale: async () => {
        throw new Error("snapshots table locked");
      },
      requestPull: async () => ({ pullId: "never", readsFromNow: true }),
    };
    const { recordWebhookEventFailure } = await import("../../db/queries/webhooks");
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(processWebhookEvent(t.db, id, failing)).rejects.toThrow("snapshots table locked");
      await recordWebhookEventFailure(t.db, id, { error: "snapshots table locked", maxAttempts: 3 });
    }
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 3, last_error: "snapshots table locked" });
    // As the job records it, for every role to read: not the database's or the code's own words.
    const other = await store("p7", envelope({ gameId: "p7", type: "subscription.refunded", data: refundedData() }));
    const { processWebhookEventOnce, UNEXPECTED } = await import("../../lib/webhooks/process-event-job.handler");
    await expect(processWebhookEventOnce(t.db, other, failing)).rejects.toThrow("snapshots table locked");
    expect(await row(other)).toMatchObject({ status: "pending", attempts: 1, last_error: UNEXPECTED });
    // Nothing was half-applied, and a failed event is not queued again by the sweep.
    const queued = await sweep();
    expect(queued).not.toContain(id);
  });
});

describe("filters of the event log", () => {
  it("filters by type, subscription prefix and event time", async () => {
    await addGame(t.db, "f1");
    const times = ["2026-03-01T00:00:00Z", "2026-03-15T00:00:00Z", "2026-04-01T00:00:00Z"];
    for (const createdAt of times) {
      await store(
        "f1",
        envelope({
          gameId: "f1",
          type: "subscription.canceled",
          createdAt,
          data: { subscription_id: `SUB_1_${createdAt.slice(5, 7)}`, access_until: null },
        }),
      );
    }
    await store(
      "f1",
      envelope({ gameId: "f1", type: "purchase.failed", createdAt: times[1], data: { order_id: "o" } }),
    );
    const list = (filter: Parameters<typeof listWebhookEvents>[1]["filter"]) =>
      listWebhookEvents(t.db, { gameId: "f1", filter, sort: "occurred_at", dir: "asc", limit: 50, offset: 0 });
    const march: TimeWindow = monthWindow("2026-03");
    expect((await list({ fromMs: march.startMs, toMs: march.endMs })).total).toBe(3);
    expect((await list({ fromMs: march.startMs, toMs: march.endMs, eventType: "subscription.canceled" })).total).toBe(
      2,
    );
    expect((await list({ subscription: "SUB_1_04" })).rows.map((r) => r.occurredAt)).toEqual([
      "2026-04-01T00:00:00.000Z",
    ]);
    expect((await list({ subscription: "SUB_1_%" })).total).toBe(0);
    // As pasted from a ticket, in lower case.
    expect((await list({ subscription: "sub_1_04" })).total).toBe(1);
    expect((await list({ fromMs: parseInstant("2026-03-15T00:00:00Z") ?? 0 })).total).toBe(3);
  });
});
