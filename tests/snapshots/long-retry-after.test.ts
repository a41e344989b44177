import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPull } from "@/db/queries/snapshots";
import { stopBoss } from "@/lib/jobs/queue";
import { startWorkers } from "@/lib/jobs/worker";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { monthWindow } from "@/lib/time";
import { waitFor } from "../support/wait";
import { admin, buildScenario, GAME_ID, publishedCounts, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * A 429 whose retry_after is longer than a page's whole retry budget (15 minutes) is not waited out in the call, nor
 * retried by pg-boss a few seconds later (it would meet the same 429 and spend the pull's attempts): the pull waits to
 * retry, saying why, with its job queued to start after the wait.
 */

const WINDOW = monthWindow("2026-03");
const ROUTE = "/api/subscriptions/reporting/attribution";
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 20,
      renewalsPerRecipient: 2,
      reversals: 2,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => {
  await stopBoss();
  await env?.close();
});

type JobRow = { id: string; state: string; wait_s: number };

function jobsOfPull(pullId: string) {
  return sql<JobRow>`select id::text, state,
      extract(epoch from (start_after - now()))::float8 as wait_s
    from pgboss.job where name = 'snapshot-pull' and singleton_key = ${pullId} order by created_on`
    .execute(env.db)
    .then((r) => r.rows);
}

describe("a pull asked to wait longer than its retry budget", () => {
  it("[finance] waits to retry after the service's retry_after, then publishes", async () => {
    await admin(env.emulator, "/faults", { route: ROUTE, fault: "429", retry_after: 1_200, count: 1 });
    const { pullId } = await requestSnapshot(env.db, { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "ui" });
    await startWorkers();
    const queuedAgain = await waitFor(
      async () => {
        const jobs = await jobsOfPull(pullId);
        return jobs.length === 2 && jobs[0]?.state === "completed" && jobs[1]?.state === "created" ? jobs : null;
      },
      { within: 30_000, every: 200, what: "the pull's job to complete and a second to be queued" },
    );
    const next = queuedAgain[1] as JobRow;
    expect(next.wait_s).toBeGreaterThan(1_100);
    expect(next.wait_s).toBeLessThanOrEqual(1_200);

    const waiting = await getPull(env.db, { gameId: GAME_ID, pullId });
    expect(waiting).toMatchObject({ status: "retrying", attempts: 1 });
    // Its card says when it tries again.
    expect(waiting?.phase).toMatch(/^waiting to retry at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(waiting?.error?.message).toMatch(/^The service asked for a wait of 20m 00s before the next request, /);
    expect(waiting?.error?.message).toMatch(/longer than one page's retry budget \(15m 00s\): /);
    const row = await env.db
      .selectFrom("snapshot_pull")
      .select("job_id")
      .where("id", "=", pullId)
      .executeTakeFirstOrThrow();
    expect(row.job_id).toBe(next.id);
    expect((await publishedCounts(env.db)).snapshot).toBe(0);

    // The wait passes.
    await sql`update pgboss.job set start_after = now() where id = ${next.id}::uuid`.execute(env.db);
    const done = await waitFor(
      async () => {
        const pull = await getPull(env.db, { gameId: GAME_ID, pullId });
        return pull?.status === "complete" ? pull : null;
      },
      { within: 45_000, every: 200, what: "the pull to complete after the wait" },
    );
    expect(done.attempts).toBe(2);
    expect(done.recipientsFetched).toBe(20);
    expect((await publishedCounts(env.db)).snapshot).toBe(1);
  });

  it("[finance] fails for good, saying so, when the wait asked for is longer than a pull waits at all", async () => {
    await admin(env.emulator, "/faults", { route: ROUTE, fault: "429", retry_after: 7 * 3_600, count: 1 });
    const window = monthWindow("2026-02");
    const { pullId } = await requestSnapshot(env.db, { gameId: GAME_ID, window, requestedBy: null, via: "ui" });
    await startWorkers();
    const failed = await waitFor(
      async () => {
        const pull = await getPull(env.db, { gameId: GAME_ID, pullId });
        return pull?.status === "failed" ? pull : null;
      },
      { within: 30_000, every: 200, what: "the pull to fail" },
    );
    expect(failed.attempts).toBe(1);
    expect(failed.error?.message).toMatch(/^The service asked for a wait of 420m 00s before the next request, longer /);
    expect(failed.error?.message).toMatch(
      /than a pull waits to try again \(6 hours\): take the snapshot again later\./,
    );
    // Its one job ends completed, not retried (pg-boss writes that once the handler has returned, just after the pull
    // is marked failed).
    const jobs = await waitFor(
      async () => {
        const list = await jobsOfPull(pullId);
        return list.every((j) => j.state !== "active") ? list : null;
      },
      { within: 30_000, every: 200, what: "the pull's job to end" },
    );
    expect(jobs.map((j) => j.state)).toEqual(["completed"]);
  });
});
