import { sql } from "kysely";
import pg from "pg";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { insertQueuedPull, startPullAttempt } from "@/db/queries/snapshot-pulls";
import { getPull } from "@/db/queries/snapshots";
import { stopBoss } from "@/lib/jobs/queue";
import { startWorkers } from "@/lib/jobs/worker";
import { requestSnapshot, runPull } from "@/lib/snapshots/pull";
import { whileInsertsRefused } from "../support/refused-inserts";
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

/** A pull's audit lines, in the order written. */
function auditOfPull(pullId: string) {
  return env.db
    .selectFrom("audit_log")
    .select(["action", "outcome", "detail"])
    .where("target", "=", pullId)
    .orderBy("id")
    .execute();
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
      await startWorkers(); // started by the test before when the file runs whole
      const pull = await requestSnapshot(env.db, {
        gameId: GAME_ID,
        window: monthWindow("2026-02"),
        requestedBy: null,
        via: "ui",
      });
      const failed = await waitForPull(pull.pullId, "failed");
      expect(failed.attempts).toBe(1);
      expect(failed.error?.message).toMatch(/403/);
      // The request's line and the failure's, which names the code and the window.
      const lines = await auditOfPull(pull.pullId);
      expect(lines.map((l) => [l.action, l.outcome])).toEqual([
        ["snapshot.request", "queued"],
        ["snapshot.pull", "failed"],
      ]);
      expect(lines[1]?.detail).toEqual({
        code: failed.error?.code,
        window: { start: "2026-02-01T00:00:00Z", end: "2026-03-01T00:00:00Z" },
      });
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

  it("starts an attempt on the database's clock, and never on a pull that failed for good", async () => {
    // A pull whose last attempt failed for good (its own row, whatever ran before).
    const failedId = randomUUID();
    const inWindow = { gameId: GAME_ID, window: monthWindow("2024-12"), via: "test", requestedBy: null };
    await insertQueuedPull(env.db, { id: failedId, ...inWindow });
    await env.db
      .updateTable("snapshot_pull")
      .set({ status: "failed", attempts: 5, error_code: "HTTP_403", error_message: "The service refused it (403)." })
      .where("id", "=", failedId)
      .execute();
    const failed = await env.db
      .selectFrom("snapshot_pull")
      .selectAll()
      .where("id", "=", failedId)
      .executeTakeFirstOrThrow();
    // A job that reaches it after its last attempt failed (a retry, or one queued again meanwhile) leaves it failed.
    expect(await startPullAttempt(env.db, { pullId: failed.id, jobId: null })).toBeNull();
    await expect(runPull(env.db, failed.id)).rejects.toMatchObject({
      name: "PullFailedError",
      final: true,
      code: "HTTP_403",
    });
    expect(await env.db.selectFrom("snapshot_pull").selectAll().where("id", "=", failed.id).executeTakeFirst()).toEqual(
      failed,
    );
    // A pull still queued starts at the database's time, whatever the clock of the worker starting it.
    const id = randomUUID();
    await insertQueuedPull(env.db, {
      id,
      gameId: GAME_ID,
      window: monthWindow("2025-01"),
      via: "test",
      requestedBy: null,
    });
    vi.useFakeTimers({ now: Date.now() - 120_000, toFake: ["Date"] });
    let attempt: Awaited<ReturnType<typeof startPullAttempt>>;
    try {
      attempt = await startPullAttempt(env.db, { pullId: id, jobId: null });
    } finally {
      vi.useRealTimers();
    }
    const database = await sql<{ now: Date }>`select now()`.execute(env.db);
    const lag = (database.rows[0]?.now.getTime() ?? 0) - (attempt?.startedAt.getTime() ?? 0);
    expect(attempt?.attempts).toBe(1);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(60_000);
    await env.db.deleteFrom("snapshot_pull").where("id", "=", id).execute();
  });

  it("[finance] a request the job queue cannot take ends its pull failed, audited, and the window free", async () => {
    await startWorkers();
    // The queue refuses snapshot pull jobs (pg-boss's job table refuses them) while the request is made.
    const window = monthWindow("2025-02");
    const request = { gameId: GAME_ID, window, requestedBy: null, via: "ui" };
    const refusal = { table: "pgboss.job", message: "queue unavailable", when: sql`new.name = 'snapshot-pull'` };
    await whileInsertsRefused(env.db, refusal, () =>
      expect(requestSnapshot(env.db, request)).rejects.toThrow(/queue unavailable/),
    );
    const pull = await env.db
      .selectFrom("snapshot_pull")
      .select(["id", "status", "error_code"])
      .where("window_start", "=", new Date(window.startMs))
      .executeTakeFirstOrThrow();
    expect(pull).toMatchObject({ status: "failed", error_code: "QUEUE_UNAVAILABLE" });
    const lines = await auditOfPull(pull.id);
    expect(lines).toEqual([
      expect.objectContaining({ action: "snapshot.request", outcome: "queued" }),
      {
        action: "snapshot.pull",
        outcome: "failed",
        detail: { code: "QUEUE_UNAVAILABLE", window: { start: "2025-02-01T00:00:00Z", end: "2025-03-01T00:00:00Z" } },
      },
    ]);
    // The window is free: the next request is a pull of its own.
    const next = await requestSnapshot(env.db, request);
    expect(next.deduplicated).toBe(false);
    await waitForPull(next.pullId, "complete");
  });
});
