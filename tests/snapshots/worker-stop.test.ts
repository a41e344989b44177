import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPull } from "@/db/queries/snapshots";
import { startWorkers, stopWorkers } from "@/lib/jobs/worker";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { randomUUID } from "node:crypto";
import { WorkerStoppedError } from "@/lib/jobs/queue";
import { handBackIfStopped, isLockFree } from "@/lib/snapshots/pull-common";
import { monthWindow } from "@/lib/time";
import { waitFor } from "../support/wait";
import { admin, buildScenario, GAME_ID, publishedCounts, type SnapshotTestEnv, startSnapshotEnv } from "./helpers";

/** A worker asked to stop while a pull waits on the service: the pull is handed back, not kept until it answers. */

const WINDOW = monthWindow("2026-03");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 120,
      renewalsPerRecipient: 2,
      reversals: 4,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => {
  await stopWorkers();
  await env?.close();
});

async function pullRow(pullId: string) {
  const pull = await getPull(env.db, { gameId: GAME_ID, pullId });
  if (!pull) throw new Error(`no pull ${pullId}`);
  return pull;
}

describe("a worker stopped during a pull", () => {
  it(
    "[finance] hands the pull back once its grace is over, without waiting for the service; " +
      "another run publishes it once",
    async () => {
      // The service holds its answer to the first report page for two minutes (until let go below).
      await admin(env.emulator, "/faults", {
        route: "/api/subscriptions/reporting/attribution",
        fault: "delay",
        hang_ms: 120_000,
      });
      const { pullId } = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: WINDOW,
        requestedBy: null,
        via: "ui",
      });
      await startWorkers();
      await waitFor(async () => env.emulator.runtime.hangs.size > 0 && (await pullRow(pullId)).status === "running", {
        within: 45_000,
        every: 100,
        what: "the pull waiting on the service's first page",
      });

      // Half the grace for the job to finish (it cannot: the service holds its answer), half for it to give up.
      const counts = await stopWorkers({ timeoutMs: 10_000 });
      expect(counts.running).toBe(1);
      // Written before the stop returned: queued again, the attempt not counted, the window's lock let go.
      const handedBack = await pullRow(pullId);
      expect(handedBack).toMatchObject({ status: "queued", attempts: 0, error: null });
      expect(handedBack.phase).toMatch(/handed back/);
      expect(await isLockFree(env.db, GAME_ID, WINDOW)).toBe(true);
      expect((await publishedCounts(env.db)).snapshot).toBe(0);

      for (const release of [...env.emulator.runtime.hangs]) release();
      await startWorkers();
      const done = await waitFor(
        async () => {
          const pull = await pullRow(pullId);
          return pull.status === "complete" ? pull : null;
        },
        { within: 60_000, every: 200, what: "the pull published by the next run" },
      );
      expect(done.attempts).toBe(1);
      expect(done.recipientsFetched).toBe(120);
      const published = await publishedCounts(env.db);
      expect(published.snapshot).toBe(1);
      expect(published.snapshot_recipient).toBe(120);
    },
  );

  it("hands back only an attempt the stop ended: a failure as the stop began is recorded as itself", async () => {
    const stopping = new AbortController();
    stopping.abort(new WorkerStoppedError());
    const pullId = randomUUID();
    expect(await handBackIfStopped(env.db, pullId, stopping.signal, new Error("401 from the service"))).toBe(false);
    expect(await handBackIfStopped(env.db, pullId, stopping.signal, stopping.signal.reason)).toBe(true);
    const wrapped = new Error("page not read", { cause: stopping.signal.reason });
    expect(await handBackIfStopped(env.db, pullId, stopping.signal, wrapped)).toBe(true);
    // Not stopping: nothing is handed back whatever the failure.
    expect(await handBackIfStopped(env.db, pullId, undefined, stopping.signal.reason)).toBe(false);
  });
});
