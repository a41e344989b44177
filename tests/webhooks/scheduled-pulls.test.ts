import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateGameAutomation } from "../../db/queries/webhooks";
import { stopBoss } from "../../lib/jobs/queue";
import { parseInstant } from "../../lib/time";
import { scheduleSnapshotPulls } from "../../lib/webhooks/scheduled-pulls";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { addAutomatedGame, addGame, recordingLink } from "./support";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

describe("scheduled pulls", () => {
  it("queues the closed month on the first and the month so far daily, once each, per game", async () => {
    const fresh = await createTestDatabase();
    try {
      await addGame(fresh.db, "s1");
      await addGame(fresh.db, "s2");
      await updateGameAutomation(fresh.db, "s2", {
        autoRefresh: false,
        pullPreviousMonth: false,
        pullCurrentMonthDaily: true,
      });
      const { link, pulls } = recordingLink();
      const first = parseInstant("2026-12-01T00:07:00Z") as number;
      const queued = await scheduleSnapshotPulls(fresh.db, { nowMs: first, link });
      expect(queued.map((q) => [q.gameId, q.kind, q.periodKey])).toEqual([
        ["s1", "previous_month", "2026-11"],
        ["s1", "current_month", "2026-12-01"],
        ["s2", "current_month", "2026-12-01"],
      ]);
      expect(pulls.every((p) => p.via === "schedule")).toBe(true);

      // The same hour again, and the next hour: nothing new. The next day: only the daily pulls.
      expect(await scheduleSnapshotPulls(fresh.db, { nowMs: first, link })).toEqual([]);
      expect(await scheduleSnapshotPulls(fresh.db, { nowMs: first + 3_600_000, link })).toEqual([]);
      const nextDay = await scheduleSnapshotPulls(fresh.db, { nowMs: first + 86_400_000, link });
      expect(nextDay.map((q) => [q.gameId, q.kind, q.periodKey])).toEqual([
        ["s1", "current_month", "2026-12-02"],
        ["s2", "current_month", "2026-12-02"],
      ]);
      expect(pulls).toHaveLength(5);
    } finally {
      await fresh.drop();
    }
  });

  it("a scheduled pull that found the window's pull already reading is asked again on the next run", async () => {
    const fresh = await createTestDatabase();
    try {
      await addAutomatedGame(fresh.db, "s4", { pullPreviousMonth: true });
      const { link, pulls, state } = recordingLink();
      state.reading = true;
      const at = parseInstant("2026-12-01T00:07:00Z") as number;
      expect(await scheduleSnapshotPulls(fresh.db, { nowMs: at, link })).toEqual([]);
      state.reading = false;
      expect((await scheduleSnapshotPulls(fresh.db, { nowMs: at + 3_600_000, link })).map((q) => q.periodKey)).toEqual([
        "2026-11",
      ]);
      expect(pulls).toHaveLength(2);
    } finally {
      await fresh.drop();
    }
  });

  it("a pull that could not be queued is tried again on the next run", async () => {
    const fresh = await createTestDatabase();
    try {
      await addAutomatedGame(fresh.db, "s3", { pullPreviousMonth: true });
      const { link, pulls } = recordingLink({ failPulls: 1 });
      const at = parseInstant("2026-12-01T01:07:00Z") as number;
      expect(await scheduleSnapshotPulls(fresh.db, { nowMs: at, link })).toEqual([]);
      expect((await scheduleSnapshotPulls(fresh.db, { nowMs: at + 3_600_000, link })).map((q) => q.periodKey)).toEqual([
        "2026-11",
      ]);
      expect(pulls).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });
});
