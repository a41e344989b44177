import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, getBoss, stopBoss } from "../../lib/jobs/queue";
import { reconcileRefundsJob } from "../../lib/refunds/reconcile-job";
import { pullSnapshotJob } from "../../lib/snapshots/pull-job";
import { recoverSnapshotPullsJob } from "../../lib/snapshots/pull-recover-job";
import { processWebhookEventJob } from "../../lib/webhooks/process-event-job";
import { scheduleSnapshotPullsJob } from "../../lib/webhooks/schedule-pulls-job";
import { sweepWebhookEventsJob } from "../../lib/webhooks/sweep-job";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

async function jobsOf(name: string): Promise<{ id: string; state: string; singleton_key: string | null }[]> {
  const result = await sql<{ id: string; state: string; singleton_key: string | null }>`
    select id, state, singleton_key from pgboss.job where name = ${name} order by created_on`.execute(t.db);
  return result.rows;
}

/** Takes the waiting jobs of a queue as a worker would (state active), without running a handler. */
async function take(name: string, batchSize = 1): Promise<string[]> {
  const boss = await getBoss();
  const jobs = await boss.fetch(name, { batchSize });
  return jobs.map((j) => j.id);
}

describe("job queue uniqueness", () => {
  it("refuses a second snapshot pull job for a pull that is already waiting", async () => {
    const pullId = randomUUID();
    const first = await enqueue(pullSnapshotJob, { pullId });
    const second = await enqueue(pullSnapshotJob, { pullId });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    // Another pull is queued as usual.
    expect(await enqueue(pullSnapshotJob, { pullId: randomUUID() })).toEqual(expect.any(String));
    expect((await jobsOf(pullSnapshotJob.name)).filter((j) => j.singleton_key === pullId)).toHaveLength(1);
  });

  it(
    "queues a pull again once its job has started (a worker that died is replaced; the pull's lock keeps one " +
      "running)",
    async () => {
      const pullId = randomUUID();
      const first = await enqueue(pullSnapshotJob, { pullId });
      expect(first).toEqual(expect.any(String));
      expect(await take(pullSnapshotJob.name, 10)).toContain(first);
      const again = await enqueue(pullSnapshotJob, { pullId });
      expect(again).toEqual(expect.any(String));
      expect(await enqueue(pullSnapshotJob, { pullId })).toBeNull();
    },
  );

  it("keeps one reconcile run waiting and one running, never two of either", async () => {
    const first = await enqueue(reconcileRefundsJob, {});
    expect(first).toEqual(expect.any(String));
    expect(await enqueue(reconcileRefundsJob, {})).toBeNull();

    expect(await take(reconcileRefundsJob.name)).toEqual([first]);
    const next = await enqueue(reconcileRefundsJob, {});
    expect(next).toEqual(expect.any(String));
    expect(await enqueue(reconcileRefundsJob, {})).toBeNull();
    // While the first runs, the waiting one is not handed to a second worker.
    expect(await take(reconcileRefundsJob.name)).toEqual([]);
    expect((await jobsOf(reconcileRefundsJob.name)).map((j) => j.state).sort()).toEqual(["active", "created"]);
  });

  it("keeps one waiting run of each scheduled job", async () => {
    for (const job of [sweepWebhookEventsJob, scheduleSnapshotPullsJob, recoverSnapshotPullsJob]) {
      expect(await enqueue(job, {})).toEqual(expect.any(String));
      expect(await enqueue(job, {})).toBeNull();
    }
  });

  it("refuses a second processing job for a webhook event that is already waiting", async () => {
    expect(await enqueue(processWebhookEventJob, { eventId: "41" })).toEqual(expect.any(String));
    expect(await enqueue(processWebhookEventJob, { eventId: "41" })).toBeNull();
    expect(await enqueue(processWebhookEventJob, { eventId: "42" })).toEqual(expect.any(String));
  });

  it("moves a queue created before its policy existed to that policy", async () => {
    await stopBoss();
    await sql`update pgboss.queue set policy = 'standard' where name = ${reconcileRefundsJob.name}`.execute(t.db);
    await sql`delete from pgboss.job where name = ${reconcileRefundsJob.name}`.execute(t.db);
    expect(await enqueue(reconcileRefundsJob, {})).toEqual(expect.any(String));
    expect(await enqueue(reconcileRefundsJob, {})).toBeNull();
    const queue = await sql<{
      policy: string;
    }>`select policy from pgboss.queue where name = ${reconcileRefundsJob.name}`.execute(t.db);
    expect(queue.rows[0]?.policy).toBe("stately");
  });

  it("gives a queue created with other retries the definition's, so the jobs queued next take them", async () => {
    await stopBoss();
    await sql`update pgboss.queue set retry_limit = 3, retry_delay = 2, expire_seconds = 60
      where name = ${reconcileRefundsJob.name}`.execute(t.db);
    await sql`delete from pgboss.job where name = ${reconcileRefundsJob.name}`.execute(t.db);
    expect(await enqueue(reconcileRefundsJob, {})).toEqual(expect.any(String));
    const job = await sql<{ retry_limit: number; retry_delay: number }>`select retry_limit, retry_delay
      from pgboss.job where name = ${reconcileRefundsJob.name}`.execute(t.db);
    expect(job.rows).toEqual([
      { retry_limit: reconcileRefundsJob.retryLimit ?? 5, retry_delay: reconcileRefundsJob.retryDelaySeconds ?? 10 },
    ]);
  });
});

describe("a queue client being stopped", () => {
  it("queues a running handler's jobs through itself, and the next caller after the stop starts one anew", async () => {
    const boss = await getBoss();
    let running = 1;
    const stopping = stopBoss({ timeoutMs: 30_000, running: () => running });
    // A handler still running during the stop queues a job: through the stopping client, not a second one.
    const during = await getBoss();
    expect(during).toBe(boss);
    const id = await enqueue(pullSnapshotJob, { pullId: randomUUID() });
    expect(id).toEqual(expect.any(String));
    expect((await jobsOf(pullSnapshotJob.name)).map((j) => j.id)).toContain(id);
    // A second stop waits for the first.
    const again = stopBoss();
    running = 0;
    await Promise.all([stopping, again]);
    const after = await getBoss();
    expect(after).not.toBe(boss);
    expect(await after.getQueues()).toBeInstanceOf(Array);
  });
});

describe("a queue client that could not start", () => {
  it("is stopped without a second failure, and the next caller starts one anew", async () => {
    await stopBoss();
    // Nothing listens on port 1: the start fails at once, while the client is being stopped (a command's `finally`).
    const starting = getBoss("postgres://nobody@127.0.0.1:1/none");
    const stopping = stopBoss();
    expect(
      await starting.then(
        () => "started",
        () => "failed",
      ),
    ).toBe("failed");
    await expect(stopping).resolves.toBeUndefined();
    // A start that failed is not kept: the real database's client starts on the next call.
    const boss = await getBoss(t.url);
    expect(await boss.getQueues()).toBeInstanceOf(Array);
  });

  it("is tried again by the next caller, not kept as its answer", async () => {
    await stopBoss();
    const refused = await getBoss("postgres://nobody@127.0.0.1:1/none").then(
      () => "started",
      () => "failed",
    );
    expect(refused).toBe("failed");
    // No stop in between: the failed start is not what the next caller gets.
    const boss = await getBoss(t.url);
    expect(await boss.getQueues()).toBeInstanceOf(Array);
  });
});

describe("a stop whose time is up with a handler still running", () => {
  it("hands back a job taken as the stop began (still active), and leaves alone one already ended", async () => {
    const raced = await enqueue(processWebhookEventJob, { eventId: "9001" });
    const done = await enqueue(processWebhookEventJob, { eventId: "9002" });
    // Both taken as a worker's fetch would, outside any pg-boss worker: pg-boss's own stop knows of neither.
    expect(await take(processWebhookEventJob.name, 10)).toEqual(expect.arrayContaining([raced, done]));
    const boss = await getBoss();
    await boss.complete(processWebhookEventJob.name, done ?? "");
    const stillRunning = [raced, done].map((id) => ({ name: processWebhookEventJob.name, id: id ?? "" }));
    await stopBoss({ timeoutMs: 1_000, handBack: () => stillRunning });
    const states = Object.fromEntries(
      (await jobsOf(processWebhookEventJob.name))
        .filter((j) => j.id === raced || j.id === done)
        .map((j) => [j.id, j.state]),
    );
    // Failed with retries left: waiting for another worker (retry), not active until it expires.
    expect(states).toEqual({ [raced ?? ""]: "retry", [done ?? ""]: "completed" });
  });
});
