import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertQueuedPull } from "../../db/queries/snapshot-pulls";
import { failPull } from "../../lib/snapshots/pull-common";
import { parseInstant } from "../../lib/time";
import { scheduleSnapshotPulls } from "../../lib/webhooks/scheduled-pulls";
import type { SnapshotLink } from "../../lib/webhooks/snapshot-link";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { addAutomatedGame } from "./support";

/**
 * The month's close is pulled once per month, on its first days: a pull of it that failed for good (the service down
 * at 00:07 on the 1st) does not count, and the next hourly run asks for it again, once, however many workers run.
 */

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => {
  await t?.drop();
});

/** Each pull asked for is a real pull row, queued; the test fails them as a worker would. */
function pullingLink(): { link: SnapshotLink; asked: string[] } {
  const asked: string[] = [];
  const link: SnapshotLink = {
    markStale: async () => [],
    requestPull: async (db, input) => {
      const id = randomUUID();
      await insertQueuedPull(db, { id, gameId: input.gameId, window: input.window, via: input.via, requestedBy: null });
      asked.push(id);
      return { pullId: id, readsFromNow: true };
    },
  };
  return { link, asked };
}

describe("the month's scheduled close", () => {
  it("is asked for again by the next run when its pull failed, and only then", async () => {
    await addAutomatedGame(t.db, "sr1", { pullPreviousMonth: true });
    const { link, asked } = pullingLink();
    const at = parseInstant("2026-12-01T00:07:00Z") as number;
    expect((await scheduleSnapshotPulls(t.db, { nowMs: at, link })).map((q) => q.periodKey)).toEqual(["2026-11"]);
    // Still under way an hour later: nothing more.
    expect(await scheduleSnapshotPulls(t.db, { nowMs: at + 3_600_000, link })).toEqual([]);

    await failPull(t.db, asked[0] as string, "SERVICE_UNAVAILABLE", "The service did not answer.");
    // Two workers run the next hour at once: one asks again.
    const runs = await Promise.all([1, 2].map(() => scheduleSnapshotPulls(t.db, { nowMs: at + 2 * 3_600_000, link })));
    expect(runs.flat().map((q) => [q.periodKey, q.pullId])).toEqual([["2026-11", asked.at(-1)]]);
    const recorded = await t.db.selectFrom("scheduled_pull").select(["period_key", "pull_id"]).execute();
    expect(recorded).toEqual([{ period_key: "2026-11", pull_id: asked.at(-1) }]);
    expect(await scheduleSnapshotPulls(t.db, { nowMs: at + 3 * 3_600_000, link })).toEqual([]);
  });
});
