import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPull } from "@/db/queries/snapshots";
import { stopBoss } from "@/lib/jobs/queue";
import { startWorkers } from "@/lib/jobs/worker";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { waitFor } from "../support/wait";
import { monthWindow } from "@/lib/time";
import { admin, buildScenario, GAME_ID, publishedCounts, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/** The background path: a requested pull runs as a pg-boss job, once per window, and retries itself after a failure. */

const WINDOW = monthWindow("2026-03");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 300,
      renewalsPerRecipient: 2,
      reversals: 10,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => {
  await stopBoss();
  await env?.close();
});

/** Holds the advisory lock a worker takes on the window, on a connection of its own, until released. */
async function holdWindowLock(window: { startMs: number; endMs: number }) {
  const client = new pg.Client({ connectionString: env.t.url });
  await client.connect();
  await client.query("select pg_advisory_lock(hashtext($1))", [
    `snapshot-pull|${GAME_ID}|${window.startMs}|${window.endMs}`,
  ]);
  return {
    async release() {
      await client.end();
    },
  };
}

async function waitForPull(pullId: string, status: string) {
  let pull: Awaited<ReturnType<typeof getPull>>;
  return waitFor(
    async () => {
      pull = await getPull(env.db, { gameId: GAME_ID, pullId });
      return pull?.status === status ? pull : null;
    },
    {
      within: 45_000,
      every: 200,
      what: () => `pull ${pullId} to be ${status} (it is ${pull?.status}: ${pull?.error?.message ?? "no error"})`,
    },
  );
}

describe("snapshot job", () => {
  it(
    "[finance] a requested pull runs in the background, once " +
      "per window, and retries itself after a failed attempt",
    async () => {
      // Five 503s: ridden out on the page they hit, within the first attempt.
      await admin(env.emulator, "/faults", {
        route: "/api/subscriptions/reporting/attribution",
        fault: "503",
        count: 5,
      });
      const requester = { id: "user-1", email: "finance@example.test" };
      const first = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: WINDOW,
        requestedBy: requester,
        via: "ui",
      });
      const again = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: WINDOW,
        requestedBy: requester,
        via: "ui",
      });
      expect(first.deduplicated).toBe(false);
      expect(again).toMatchObject({ pullId: first.pullId, deduplicated: true });
      expect((await publishedCounts(env.db)).snapshot).toBe(0);

      // The window is held elsewhere when the job first runs: that attempt fails and pg-boss runs the job again.
      const held = await holdWindowLock(WINDOW);
      await startWorkers();
      const jobId = (
        await env.db
          .selectFrom("snapshot_pull")
          .select("job_id")
          .where("id", "=", first.pullId)
          .executeTakeFirstOrThrow()
      ).job_id;
      await waitFor(
        async () => {
          const job = await sql<{
            retry_count: number;
          }>`select retry_count from pgboss.job where id = ${jobId}::uuid`.execute(env.db);
          return (job.rows[0]?.retry_count ?? 0) >= 1;
        },
        { within: 45_000, every: 200, what: "pg-boss to retry the pull's job" },
      );
      await held.release();
      const done = await waitForPull(first.pullId, "complete");
      expect(done.attempts).toBe(1);
      expect(done.retries).toBe(5);
      expect(done.snapshotId).not.toBeNull();
      expect(done.recipientsFetched).toBe(300);
      const counts = await publishedCounts(env.db);
      expect(counts.snapshot).toBe(1);
      expect(counts.snapshot_recipient).toBe(300);
      const snapshot = await env.db
        .selectFrom("snapshot")
        .select(["taken_by_email", "version"])
        .executeTakeFirstOrThrow();
      expect(snapshot).toEqual({ taken_by_email: "finance@example.test", version: 1 });

      // Once complete, the window can be pulled again: a new version.
      const next = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: WINDOW,
        requestedBy: requester,
        via: "ui",
      });
      expect(next.deduplicated).toBe(false);
      await waitForPull(next.pullId, "complete");
      expect(
        (await env.db.selectFrom("snapshot").select("version").orderBy("version").execute()).map((r) => r.version),
      ).toEqual([1, 2]);
    },
  );

  it(
    "[finance] a pull the service refuses for good fails " + "once with the service's code, and frees the window",
    async () => {
      await admin(env.emulator, `/games/${GAME_ID}`, { status: "suspended" }, "PATCH");
      const pull = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: monthWindow("2026-02"),
        requestedBy: null,
        via: "ui",
      });
      const failed = await waitForPull(pull.pullId, "failed");
      expect(failed.attempts).toBe(1);
      expect(failed.error?.message).toMatch(/403/);
      await admin(env.emulator, `/games/${GAME_ID}`, { status: "live" }, "PATCH");
      const retry = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: monthWindow("2026-02"),
        requestedBy: null,
        via: "ui",
      });
      expect(retry.deduplicated).toBe(false);
      await waitForPull(retry.pullId, "complete");
    },
  );
});
