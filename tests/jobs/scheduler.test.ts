import { sql } from "kysely";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listScheduledRuns } from "../../db/queries/scheduled-runs";
import { ensureQueue, getBoss, type QueueSettings } from "../../lib/jobs/queue";
import { startScheduler } from "../../lib/jobs/scheduler";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { SLACK } from "../support/slack";

let t: TestDatabase;
const bosses: PgBoss[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  for (const boss of bosses) await boss.stop({ graceful: false, wait: true });
  await t?.drop();
});

/** A process's queue client of its own, as a second worker process would have. */
async function processBoss(): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: t.url, schema: "pgboss", max: 2 });
  boss.on("error", () => undefined);
  await boss.start();
  bosses.push(boss);
  return boss;
}

const JOB: QueueSettings = {
  name: "test.scheduled",
  policy: "stately",
  schedule: { cron: "* * * * *", payload: {} },
};

describe("scheduled jobs", () => {
  it("queue one run per period, however many processes schedule them", async () => {
    const [a, b, c] = [await processBoss(), await processBoss(), await processBoss()];
    for (const boss of [a, b, c]) await ensureQueue(boss, JOB);
    // A schedule left by an earlier version (pg-boss's own cron) is taken away, so it cannot queue runs besides.
    await a.schedule(JOB.name, "* * * * *", {}, { tz: "UTC" });
    const began = Date.now();
    const stops = await Promise.all([a, b, c].map((boss) => startScheduler(boss, [JOB], { periodSeconds: 2 })));
    // Each period's run is done as a worker would, so the next period's run is not refused as a second waiting.
    const work = async () => {
      const taken = await a.fetch(JOB.name, { batchSize: 10 });
      if (taken.length > 0)
        await a.complete(
          JOB.name,
          taken.map((j) => j.id),
        );
    };
    for (;;) {
      const seen = (await listScheduledRuns(t.db, { job: JOB.name, since: new Date(began - 2_000) })).length;
      await work();
      if (seen >= 4) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The last run queued is done before the stops' last look, which may find the next period begun.
    await Promise.all(stops.map((stop) => stop()));

    expect(await a.getSchedules()).toEqual([]);
    const runs = await listScheduledRuns(t.db, { job: JOB.name, since: new Date(began - 2_000) });
    expect(runs.length).toBeGreaterThanOrEqual(4);
    const starts = runs.map((r) => r.period_start.getTime());
    // Every period from the first on, each once, each with its job.
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBe((starts[i - 1] as number) + 2_000);
    expect(runs.every((r) => r.job_id !== null)).toBe(true);
    const queued = await sql<{ id: string }>`select id from pgboss.job where name = ${JOB.name}`.execute(t.db);
    expect(queued.rows.map((r) => r.id).sort()).toEqual(runs.map((r) => r.job_id).sort());
  });
  it("queue a run under the key its definition gives, so a run queued by hand meanwhile waits as one", async () => {
    const job = { ...JOB, name: "test.scheduled.keyed", singletonKey: (p: { id?: string }) => p.id ?? "all" };
    const boss = await processBoss();
    await ensureQueue(boss, job);
    const began = Date.now();
    const stop = await startScheduler(boss, [job], { periodSeconds: 2 });
    const queuedRun = async () =>
      (await listScheduledRuns(t.db, { job: job.name, since: new Date(began - 2_000) })).find((r) => r.job_id);
    while (!(await queuedRun())) await new Promise((r) => setTimeout(r, 100));
    await stop();
    const keys = await sql<{ key: string | null }>`
      select singleton_key as key from pgboss.job where name = ${job.name} and state = 'created'`.execute(t.db);
    expect(keys.rows.map((r) => r.key)).toEqual(["all"]);
    // The same key queued by hand while the scheduled run waits: the queue's policy refuses it.
    expect(await boss.send(job.name, {}, { singletonKey: "all" })).toBeNull();
  });
  it("queue the period a process stops in before looking again, though one started in it leaves it", async () => {
    const job: QueueSettings = { ...JOB, name: "test.scheduled.handover" };
    const [a, b] = [await processBoss(), await processBoss()];
    for (const boss of [a, b]) await ensureQueue(boss, job);
    const periodMs = 2_000;
    // No grace for A either: started moments after a period began (as this test may be), it would queue that period.
    const stopA = await startScheduler(a, [job], { periodSeconds: 2, startingGraceMs: -1 });
    // A rolling restart just after a period began, before A's next look (A looks every 400 ms): B starts, leaving
    // the period under way to the processes already running, and A stops.
    const next = Math.ceil((Date.now() + 1) / periodMs) * periodMs;
    await new Promise((resolve) => setTimeout(resolve, next - Date.now() + 5));
    // B leaves it even though it began moments before (no grace here): A's last look is what queues it.
    const stopB = await startScheduler(b, [job], { periodSeconds: 2, startingGraceMs: -1 });
    await stopA();
    const runs = await listScheduledRuns(t.db, { job: job.name, since: new Date(next - periodMs) });
    await stopB();
    // The period the restart happened in, run once; on a slow machine B may rightly have run the one after it too.
    const upToNext = runs.filter((r) => r.period_start.getTime() <= next);
    expect(upToNext.map((r) => r.period_start.getTime())).toEqual([next]);
    expect(upToNext[0]?.job_id).not.toBeNull();
  });
  it("queue the period begun moments before a process starts when none did (a restart across its start)", async () => {
    const job: QueueSettings = { ...JOB, name: "test.scheduled.restart" };
    const boss = await processBoss();
    await ensureQueue(boss, job);
    // Periods of 10 s: one begun up to 2 s before the start counts as just begun.
    const periodMs = 10_000;
    // The only scheduling process was down when the period began, and starts 5 ms into it.
    const next = Math.ceil((Date.now() + 1) / periodMs) * periodMs;
    await new Promise((resolve) => setTimeout(resolve, next - Date.now() + 5));
    const stop = await startScheduler(boss, [job], { periodSeconds: 10 });
    const since = new Date(next - periodMs);
    while ((await listScheduledRuns(t.db, { job: job.name, since })).length === 0)
      await new Promise((r) => setTimeout(r, 100));
    await stop();
    const runs = await listScheduledRuns(t.db, { job: job.name, since });
    expect(runs[0]?.period_start.getTime()).toBe(next);
    expect(runs[0]?.job_id).not.toBeNull();
  });
  it(
    "leave a schedule an earlier release left in pg-boss's own table alone: nothing is queued from it",
    async () => {
      // A database of its own: no client with pg-boss's cron on has looked at its schedules yet.
      const fresh = await createTestDatabase({ migrate: false });
      const OLD = "test.old-cron";
      // A worker of an earlier release leaves the job on pg-boss's own every-minute cron, in `schema`. Its own cron is
      // off here, so that nothing queues the job before the client under test starts.
      const leaveOldSchedule = async (schema: string) => {
        const earlier = new PgBoss({ connectionString: fresh.url, schema, max: 1, schedule: false });
        earlier.on("error", () => undefined);
        await earlier.start();
        await earlier.createQueue(OLD);
        await earlier.schedule(OLD, "* * * * *", {}, { tz: "UTC" });
        await earlier.stop({ graceful: false, wait: true });
      };
      const cron = new PgBoss({ connectionString: fresh.url, schema: "pgboss_cron", max: 2 });
      cron.on("error", () => undefined);
      let app: PgBoss | null = null;
      try {
        await leaveOldSchedule("pgboss");
        // The same schedule, read by a client with pg-boss's cron on (as an earlier release's), in a schema of its own.
        await leaveOldSchedule("pgboss_cron");
        app = await getBoss(fresh.url);
        await cron.start();
        // The cron client queues the job within seconds (its cron is looked at on start, its jobs queued every 5 s).
        while ((await cron.getQueueSize(OLD)) === 0) await new Promise((r) => setTimeout(r, 200));
        // The app's client started first, with the same intervals; a few seconds more for good measure.
        await new Promise((r) => setTimeout(r, 3_000));
        expect(await app.getQueueSize(OLD)).toBe(0);
        expect(await app.getSchedules()).toHaveLength(1);
      } finally {
        await cron.stop({ graceful: false, wait: true });
        await app?.stop({ graceful: false, wait: true });
        await fresh.drop();
      }
    },
    60_000 * SLACK,
  );
});
