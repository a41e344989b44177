import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertQueuedPull, startPullAttempt } from "../../db/queries/snapshot-pulls";
import { storeWebhookEvent } from "../../db/queries/webhook-receiving";
import { updateGameAutomation } from "../../db/queries/webhooks";
import { stopBoss } from "../../lib/jobs/queue";
import { markWindowStale } from "../../lib/snapshots/stale";
import { formatWindow, monthWindow, parseWindow, type TimeWindow } from "../../lib/time";
import { drainWebhookEvents } from "../../lib/webhooks/drain";
import { sweepWebhookEvents } from "../../lib/webhooks/sweep";
import type { SnapshotLink } from "../../lib/webhooks/snapshot-link";
import { insertSnapshot } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { addAutomatedGame, addGame, envelope, refundedData } from "./support";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

let seq = 0;

async function store(gameId: string, body: string): Promise<string> {
  seq += 1;
  const stored = await storeWebhookEvent(t.db, {
    gameId,
    idempotencyKey: `idem_drain_${seq}`,
    eventId: `evt_drain_${seq}`,
    eventType: /"event_type":"([^"]+)"/.exec(body)?.[1] ?? "unknown",
    deliveryId: null,
    secretVersion: null,
    signedWith: "current",
    signatureTimestamp: new Date(),
    occurredAt: null,
    subscriptionId: null,
    clientRequestId: null,
    body,
    parseIssues: null,
  });
  if (stored.outcome !== "accepted") throw new Error("not stored");
  return stored.id;
}

function refundIn(gameId: string, index: number, refundedAt: string): string {
  return envelope({
    gameId,
    eventId: `evt_burst_${gameId}_${index}`,
    type: "subscription.refunded",
    data: refundedData({
      subscription_id: `SUB_1767225600_B${String(index).padStart(7, "0")}`,
      refunded_at: refundedAt,
    }),
  });
}

function countingLink(options: { refuse?: string; reading?: boolean } = {}) {
  const pulls: { gameId: string; window: string }[] = [];
  const link: SnapshotLink = {
    markStale: async () => {
      throw new Error("a drain marks windows stale in bulk, never one event at a time");
    },
    requestPull: async (_db, input) => {
      if (formatWindow(input.window) === options.refuse) throw new Error("queue unavailable");
      pulls.push({ gameId: input.gameId, window: formatWindow(input.window) });
      return { pullId: `pull-${pulls.length}`, readsFromNow: !options.reading };
    },
  };
  return { link, pulls };
}

/** The effect recorded on a stored event. */
const effectOf = (id: string) =>
  t.db.selectFrom("webhook_event").select("effect").where("id", "=", id).executeTakeFirstOrThrow();

async function marksIn(gameId: string, month: string) {
  const w = monthWindow(month);
  return t.db
    .selectFrom("snapshot_stale_mark")
    .select(["reason", "detail"])
    .where("game_id", "=", gameId)
    .where("instant", ">=", new Date(w.startMs))
    .where("instant", "<", new Date(w.endMs))
    .execute();
}

describe("draining stored events in chunks", () => {
  it(
    "two drains at once process each event exactly once " + "and mark a window stale once per drain, not per event",
    async () => {
      await addGame(t.db, "d1");
      await updateGameAutomation(t.db, "d1", {
        autoRefresh: true,
        pullPreviousMonth: false,
        pullCurrentMonthDaily: false,
      });
      // A published June snapshot that began reading before the burst: the burst makes it stale.
      await insertSnapshot(
        t.db,
        { window: "2026-06", recipients: [], fetchStartedAt: new Date("2026-07-01T01:00:00Z") },
        "d1",
      );

      const june: string[] = [];
      for (let i = 0; i < 300; i++) {
        june.push(await store("d1", refundIn("d1", i, `2026-06-${String((i % 28) + 1).padStart(2, "0")}T10:00:00Z`)));
      }
      const cancels: string[] = [];
      for (let i = 0; i < 60; i++)
        cancels.push(await store("d1", envelope({ gameId: "d1", type: "subscription.canceled" })));
      const unreadable = await store("d1", "{not json");
      // May has no snapshot and no pull: each refund there keeps a mark of its own, for a May snapshotted later.
      const may: string[] = [];
      for (let i = 0; i < 5; i++) may.push(await store("d1", refundIn("d1", 1_000 + i, `2026-05-0${i + 1}T00:00:00Z`)));

      const { link, pulls } = countingLink();
      const [a, b] = await Promise.all([
        drainWebhookEvents(t.db, { chunkSize: 20, link }),
        drainWebhookEvents(t.db, { chunkSize: 20, link }),
      ]);
      const total = june.length + cancels.length + 1 + may.length;
      // Each drain counts what it completed: an event processed by both would be counted twice.
      expect(a.processed + b.processed + a.unprocessable + b.unprocessable).toBe(total);
      expect(a.chunks).toBeGreaterThan(0);
      expect(b.chunks).toBeGreaterThan(0);

      const rows = await t.db
        .selectFrom("webhook_event")
        .select(["id", "status", "attempts", "effect"])
        .where("game_id", "=", "d1")
        .execute();
      expect(rows).toHaveLength(total);
      expect(rows.filter((r) => r.status === "pending")).toEqual([]);
      expect(new Set(rows.map((r) => r.attempts))).toEqual(new Set([1]));
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(unreadable)?.status).toBe("unprocessable");
      expect(byId.get(cancels[0] as string)?.effect).toMatchObject({ kind: "cancellation" });

      // One mark per chunk holding June refunds (300 in chunks of 20), not one per refund.
      const juneMarks = await marksIn("d1", "2026-06");
      expect(juneMarks.length).toBeGreaterThanOrEqual(300 / 20);
      expect(juneMarks.length).toBeLessThanOrEqual(a.chunks + b.chunks);
      for (const m of juneMarks)
        expect(m.reason).toMatch(/^subscription\.refunded SUB_1767225600_B\d{7}( and \d+ more)?$/);
      expect(juneMarks.some((m) => / and 19 more$/.test(m.reason))).toBe(true);
      expect((await marksIn("d1", "2026-05")).length).toBe(may.length);

      for (const id of june) {
        expect(byId.get(id)?.effect).toMatchObject({
          kind: "staleness",
          staleWindows: [{ start: "2026-06-01T00:00:00Z", end: "2026-07-01T00:00:00Z" }],
          autoRefresh: true,
          repullDue: false,
          repulls: [
            expect.objectContaining({ start: "2026-06-01T00:00:00Z", pullId: expect.stringMatching(/^pull-/) }),
          ],
        });
      }
      for (const id of may) expect(byId.get(id)?.effect).toMatchObject({ staleWindows: [], repullDue: false });
      // One re-pull asked per chunk holding June refunds (the pull itself is queued once per window: requestSnapshot).
      expect(pulls.length).toBeLessThanOrEqual(a.chunks + b.chunks);
      expect(new Set(pulls.map((p) => p.window))).toEqual(new Set(["[2026-06-01T00:00:00Z, 2026-07-01T00:00:00Z)"]));

      // The June version read before the burst is stale; a version read after it is not.
      const stale = await sql<{ n: string }>`
      select count(*) as n from snapshot s
       where s.game_id = 'd1' and s.version = 1 and exists (select 1 from snapshot_stale_mark m
         where m.game_id = s.game_id and m.instant >= s.window_start and m.instant < s.window_end
           and m.marked_at > s.fetch_started_at)`.execute(t.db);
      expect(Number(stale.rows[0]?.n)).toBe(1);
      await insertSnapshot(
        t.db,
        { window: "2026-06", recipients: [], fetchStartedAt: new Date(Date.now() + 60_000) },
        "d1",
      );
      const after = await sql<{ n: string }>`
      select count(*) as n from snapshot s
       where s.game_id = 'd1' and s.version = 2 and exists (select 1 from snapshot_stale_mark m
         where m.game_id = s.game_id and m.instant >= s.window_start and m.instant < s.window_end
           and m.marked_at > s.fetch_started_at)`.execute(t.db);
      expect(Number(after.rows[0]?.n)).toBe(0);
    },
  );

  it("a second burst into a window already stale since its last version marks it again, once", async () => {
    await addGame(t.db, "d2");
    await insertSnapshot(
      t.db,
      { window: "2026-08", recipients: [], fetchStartedAt: new Date("2026-09-01T01:00:00Z") },
      "d2",
    );
    const { link } = countingLink();
    for (let i = 0; i < 10; i++) await store("d2", refundIn("d2", i, "2026-08-10T00:00:00Z"));
    await drainWebhookEvents(t.db, { link });
    for (let i = 10; i < 20; i++) await store("d2", refundIn("d2", i, "2026-08-11T00:00:00Z"));
    const first = await marksIn("d2", "2026-08");
    expect(first).toHaveLength(1);
    const second = await drainWebhookEvents(t.db, { link });
    expect(second.processed).toBe(10);
    // The batch's stale flag is named after the latest mark: an override of the first burst does not cover this one.
    const marks = await marksIn("d2", "2026-08");
    expect(marks).toHaveLength(2);
    expect(marks.map((m) => m.reason)).toContain(first[0]?.reason);
  });

  it("marks and pulls the month before too for a refund placed by its event's time just after midnight", async () => {
    await addAutomatedGame(t.db, "d2m", { autoRefresh: true });
    const read = new Date("2026-07-02T00:00:00Z");
    for (const month of ["2026-05", "2026-06"])
      await insertSnapshot(t.db, { window: month, recipients: [], fetchStartedAt: read }, "d2m");
    const { link, pulls } = countingLink();
    const body = (createdAt: string) =>
      envelope({
        gameId: "d2m",
        eventId: `evt_d2m_${createdAt}`,
        type: "subscription.refunded",
        createdAt,
        data: refundedData(),
      });
    const justAfter = await store("d2m", body("2026-06-01T00:04:59Z"));
    const later = await store("d2m", body("2026-06-01T00:05:00Z"));
    // Just after a midnight inside June: both its instants are June's, one change of it.
    await store("d2m", body("2026-06-15T00:03:00Z"));
    await drainWebhookEvents(t.db, { link });
    expect(await marksIn("d2m", "2026-05")).toHaveLength(1);
    const juneMarks = await marksIn("d2m", "2026-06");
    expect(juneMarks).toHaveLength(1);
    expect(juneMarks[0]?.reason).toMatch(/ and 2 more$/);
    expect(juneMarks[0]?.detail).toMatchObject({ changes: 3 });
    const may = { start: "2026-05-01T00:00:00Z", end: "2026-06-01T00:00:00Z" };
    const june = { start: "2026-06-01T00:00:00Z", end: "2026-07-01T00:00:00Z" };
    expect((await effectOf(justAfter)).effect).toMatchObject({
      instant: "2026-06-01T00:04:59Z",
      staleWindows: [june, may],
      repullDue: false,
      repulls: expect.arrayContaining([expect.objectContaining(may), expect.objectContaining(june)]),
    });
    expect((await effectOf(later)).effect).toMatchObject({ staleWindows: [june] });
    expect(pulls.map((p) => p.window).sort()).toEqual([
      "[2026-05-01T00:00:00Z, 2026-06-01T00:00:00Z)",
      "[2026-06-01T00:00:00Z, 2026-07-01T00:00:00Z)",
    ]);
  });

  it("an event in a month and a quarter, its quarter pull not queued, stays due and keeps the month pull", async () => {
    await addAutomatedGame(t.db, "d3", { autoRefresh: true });
    const read = new Date("2027-01-02T00:00:00Z");
    await insertSnapshot(t.db, { window: "2026-10", recipients: [], fetchStartedAt: read }, "d3");
    const quarter = parseWindow("2026-10-01", "2027-01-01");
    await insertSnapshot(t.db, { window: quarter, recipients: [], fetchStartedAt: read }, "d3");
    const id = await store("d3", refundIn("d3", 1, "2026-10-10T00:00:00Z"));
    const { link } = countingLink({ refuse: formatWindow(quarter) });
    await drainWebhookEvents(t.db, { link });
    const row = await effectOf(id);
    expect(row.effect).toMatchObject({
      repullDue: true,
      repulls: [{ start: "2026-10-01T00:00:00Z", end: "2026-11-01T00:00:00Z", pullId: "pull-1" }],
    });
  });

  it("an event whose window's pull was already reading stays due, with the pull it found", async () => {
    await addAutomatedGame(t.db, "d4", { autoRefresh: true });
    const read = new Date("2026-12-02T00:00:00Z");
    await insertSnapshot(t.db, { window: "2026-11", recipients: [], fetchStartedAt: read }, "d4");
    const id = await store("d4", refundIn("d4", 1, "2026-11-10T00:00:00Z"));
    await drainWebhookEvents(t.db, { link: countingLink({ reading: true }).link });
    const row = await effectOf(id);
    expect(row.effect).toMatchObject({ repullDue: true, repulls: [expect.objectContaining({ pullId: "pull-1" })] });
  });
});

describe("changes in a window whose first version is being read", () => {
  async function readingPull(gameId: string, month: string) {
    const id = randomUUID();
    await insertQueuedPull(t.db, { id, gameId, window: monthWindow(month), via: "test", requestedBy: null });
    await startPullAttempt(t.db, { pullId: id, jobId: null });
    return id;
  }

  it("keep the event due with the pull it found, for the version it reads to be pulled again", async () => {
    await addAutomatedGame(t.db, "d7", { autoRefresh: true });
    await readingPull("d7", "2026-09");
    const id = await store("d7", refundIn("d7", 1, "2026-09-10T00:00:00Z"));
    const { link, pulls } = countingLink({ reading: true });
    await drainWebhookEvents(t.db, { link });
    expect((await effectOf(id)).effect).toMatchObject({
      staleWindows: [{ start: "2026-09-01T00:00:00Z", end: "2026-10-01T00:00:00Z" }],
      repullDue: true,
      repulls: [expect.objectContaining({ pullId: "pull-1" })],
    });
    expect(pulls).toEqual([{ gameId: "d7", window: formatWindow(monthWindow("2026-09")) }]);
  });

  it("are returned one at a time as well, with the windows of published snapshots", async () => {
    await addGame(t.db, "d8");
    await readingPull("d8", "2026-09");
    await insertSnapshot(t.db, { window: "2026-10", recipients: [], fetchStartedAt: new Date() }, "d8");
    const inSeptember = await markWindowStale(t.db, "d8", "2026-09-10T00:00:00Z", "test");
    expect(inSeptember).toEqual([monthWindow("2026-09")]);
    expect(await markWindowStale(t.db, "d8", "2026-10-10T00:00:00Z", "test")).toEqual([monthWindow("2026-10")]);
    // A month neither published nor being read: marked, with no window to pull again.
    expect(await markWindowStale(t.db, "d8", "2026-11-10T00:00:00Z", "test")).toEqual([]);
  });
});

describe("changes in a window still open", () => {
  const DAY = 86_400_000;
  /** Three whole days around now: the window is open, and a change minutes ago falls inside it. */
  function openWindow(): TimeWindow {
    const startMs = Math.floor(Date.now() / DAY) * DAY - DAY;
    return { startMs, endMs: startMs + 3 * DAY };
  }
  const refundAt = (gameId: string, index: number, at: number) => refundIn(gameId, index, new Date(at).toISOString());

  async function marksOf(gameId: string) {
    return t.db
      .selectFrom("snapshot_stale_mark")
      .select("marked_at")
      .where("game_id", "=", gameId)
      .orderBy("marked_at")
      .execute();
  }

  it("are marked at every burst: a version read up to a moment between two bursts is stale", async () => {
    await addGame(t.db, "d5");
    const window = openWindow();
    await insertSnapshot(t.db, { window, recipients: [], fetchStartedAt: new Date(Date.now() - 30 * 60_000) }, "d5");
    const { link } = countingLink();
    await store("d5", refundAt("d5", 1, Date.now() - 20 * 60_000));
    await drainWebhookEvents(t.db, { link });
    const firstMarks = await marksOf("d5");
    expect(firstMarks).toHaveLength(1);
    // The re-pull read the open window up to a minute before it began: before the first mark.
    const firstAt = firstMarks[0]?.marked_at.getTime() ?? 0;
    await insertSnapshot(t.db, { window, recipients: [], fetchStartedAt: new Date(firstAt - 59_000) }, "d5");

    await new Promise((resolve) => setTimeout(resolve, 20));
    await store("d5", refundAt("d5", 2, Date.now() - 1_000));
    await drainWebhookEvents(t.db, { link });
    const marks = await marksOf("d5");
    expect(marks).toHaveLength(2);
    // The next version reads up to a moment after the first mark and before the second change: it is stale.
    const between = new Date(firstAt + 5);
    expect(between.getTime()).toBeLessThan(marks[1]?.marked_at.getTime() ?? 0);
    const third = await insertSnapshot(t.db, { window, recipients: [], fetchStartedAt: between }, "d5");
    const stale = await sql<{ n: string }>`
      select count(*) as n from snapshot s
       where s.id = ${third.id} and exists (select 1 from snapshot_stale_mark m
         where m.game_id = s.game_id and m.instant >= s.window_start and m.instant < s.window_end
           and m.marked_at > s.fetch_started_at)`.execute(t.db);
    expect(Number(stale.rows[0]?.n)).toBe(1);
  });

  it("keep the event due while a pull starting now would read only up to a moment before the change", async () => {
    await addAutomatedGame(t.db, "d6", { autoRefresh: true });
    const window = openWindow();
    await insertSnapshot(t.db, { window, recipients: [], fetchStartedAt: new Date(Date.now() - 30 * 60_000) }, "d6");
    const recent = await store("d6", refundAt("d6", 1, Date.now() - 5_000));
    const older = await store("d6", refundAt("d6", 2, Date.now() - 5 * 60_000));
    await drainWebhookEvents(t.db, { link: countingLink().link });
    expect((await effectOf(recent)).effect).toMatchObject({ repullDue: true, repulls: [expect.anything()] });
    expect((await effectOf(older)).effect).toMatchObject({ repullDue: false, repulls: [expect.anything()] });
  });
});

describe("the sweep", () => {
  it("asks for a drain, besides each event's own job, when an event waits unprocessed", async () => {
    await addGame(t.db, "sweep1");
    const id = await store("sweep1", refundIn("sweep1", 1, "2026-05-10T10:00:00Z"));
    const queued: string[] = [];
    let drains = 0;
    await sweepWebhookEvents({
      nowMs: Date.now() + 10 * 60_000,
      queue: async (eventId) => void queued.push(eventId),
      drain: async () => {
        drains += 1;
      },
    });
    expect(drains).toBe(1);
    expect(queued).toContain(id);
  });
});
