import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBoss } from "../../lib/jobs/queue";
import { startWorkers, stopWorkers } from "../../lib/jobs/worker";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { SLACK } from "../support/slack";

// Every scheduled job every second, read once by this file's own process.
process.env.PAYOUT_DESK_SCHEDULE_SECONDS = "1";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  await stopWorkers();
  await t?.drop();
});

describe("a worker stopping while its running jobs finish", () => {
  it("still queues the scheduled runs of the periods that begin meanwhile", async () => {
    await startWorkers();
    const boss = await getBoss();
    // The drain lasts as long as a job still running would keep it: three seconds and a half.
    const stop = boss.stop.bind(boss);
    boss.stop = async (options) => {
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      return stop(options);
    };
    const began = Date.now();
    await stopWorkers({ timeoutMs: 20_000 * SLACK });

    const latest = await sql<{ start: Date | null }>`
      select max(period_start) as start from scheduled_run`.execute(t.db);
    const start = latest.rows[0]?.start;
    expect(start).toBeInstanceOf(Date);
    // A period begun two seconds and more after the stop began: only a look made during the drain saw it begin.
    expect(start?.getTime()).toBeGreaterThanOrEqual(began + 2_000);
  });
});
