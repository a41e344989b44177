import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBoss } from "../../lib/jobs/queue";
import { startWorkers, stopWorkers } from "../../lib/jobs/worker";
import { drainWebhookEventsJob } from "../../lib/webhooks/drain-job";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { SLACK } from "../support/slack";
import { waitFor } from "../support/wait";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  await stopWorkers();
  await t?.drop();
});

describe("workers asked to stop", () => {
  it("let a job fetched just as the stop began run to its end, and record it done, before they return", async () => {
    await startWorkers();
    const boss = await getBoss();
    // The stop is noted when pg-boss is asked to stop, past what the workers do before it.
    let stopAsked!: () => void;
    const asked = new Promise<void>((resolve) => (stopAsked = resolve));
    const stop = boss.stop.bind(boss);
    boss.stop = (options) => {
      stopAsked();
      return stop(options);
    };

    // The queue's table is held while a job is queued in it: the workers' fetches wait on it, and the job reaches one
    // of them only after the stop has begun.
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    let jobId: string | null = null;
    let stopping: ReturnType<typeof stopWorkers> | undefined;
    try {
      await holder.query("begin");
      const { rows } = await holder.query<{ partition_name: string }>(
        "select partition_name from pgboss.queue where name = $1",
        [drainWebhookEventsJob.name],
      );
      const table = rows[0]?.partition_name;
      expect(table).toEqual(expect.any(String));
      await holder.query(`lock table pgboss.${table} in access exclusive mode`);
      jobId = await boss.send(drainWebhookEventsJob.name, {}, { db: { executeSql: (q, v) => holder.query(q, v) } });
      expect(jobId).toEqual(expect.any(String));
      await waitFor(
        async () => {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where not l.granted and l.relation = ${`pgboss.${table}`}::regclass
              and a.application_name = 'payout-desk-jobs'`.execute(t.db);
          return (waiting.rows[0]?.n ?? 0) > 0;
        },
        { what: "a worker's fetch waiting on the queue's table" },
      );
      stopping = stopWorkers({ timeoutMs: 30_000 * SLACK });
      await asked;
      // pg-boss has no job in hand: its own stop is over in a moment.
      await sleep(300);
    } finally {
      await holder.query("commit");
      await holder.end();
    }

    const counts = await stopping;
    expect(counts.running).toBe(0);
    const job = await sql<{ state: string }>`select state from pgboss.job where id = ${jobId}`.execute(t.db);
    expect(job.rows).toEqual([{ state: "completed" }]);
  });
});
