import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPull } from "@/db/queries/snapshots";
import { requestSnapshot, runPull } from "@/lib/snapshots/pull";
import { isLockFree, PullLockLostError } from "@/lib/snapshots/pull-common";
import { monthWindow } from "@/lib/time";
import { advisoryLockHolders } from "../support/advisory-locks";
import { waitFor } from "../support/wait";
import { admin, buildScenario, GAME_ID, publishedCounts, type SnapshotTestEnv, startSnapshotEnv } from "./helpers";

/**
 * A pull holds its window's lock on a connection that sits idle for the whole pull. A database (or a pooler, or an
 * administrator) that ends that connection frees the lock for another process: the pull must stop then, not go on
 * beside a second one.
 */

const WINDOW = monthWindow("2026-03");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 40,
      renewalsPerRecipient: 2,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

async function pullRow(pullId: string) {
  const pull = await getPull(env.db, { gameId: GAME_ID, pullId });
  if (!pull) throw new Error(`no pull ${pullId}`);
  return pull;
}

describe("a pull whose window lock is lost", () => {
  it("stops and is handed back, uncounted, and the next run publishes it once", async () => {
    // The service holds its answer to the first report page for two minutes (until let go below).
    await admin(env.emulator, "/faults", {
      route: "/api/subscriptions/reporting/attribution",
      fault: "delay",
      hang_ms: 120_000,
    });
    const { pullId } = await requestSnapshot(env.db, { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "ui" });
    const running = runPull(env.db, pullId).then(
      () => null,
      (error: unknown) => error,
    );
    await waitFor(async () => env.emulator.runtime.hangs.size > 0, { within: 30_000, what: "the first page asked" });
    const [holder] = await advisoryLockHolders(env.db);
    expect(holder).toBeDefined();
    await sql`select pg_terminate_backend(${holder})`.execute(env.db);

    const ended = await running;
    expect(ended).toBeInstanceOf(PullLockLostError);
    expect(await pullRow(pullId)).toMatchObject({
      status: "queued",
      attempts: 0,
      phase: expect.stringMatching(/^handed back: the connection holding its window's lock was lost/),
    });
    await waitFor(async () => isLockFree(env.db, GAME_ID, WINDOW), { what: "the ended session's lock to go" });
    expect((await publishedCounts(env.db)).snapshot).toBe(0);

    for (const release of [...env.emulator.runtime.hangs]) release();
    await runPull(env.db, pullId);
    expect(await pullRow(pullId)).toMatchObject({ status: "complete", attempts: 1 });
    expect((await publishedCounts(env.db)).snapshot).toBe(1);
  });
});
