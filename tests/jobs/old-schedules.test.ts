import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBoss } from "../../lib/jobs/queue";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";

let t: TestDatabase;
const bosses: PgBoss[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  for (const boss of bosses) await boss.stop({ graceful: false, wait: true });
  await (await getBoss(t.url)).stop({ graceful: false, wait: true });
  await t?.drop();
});

const QUEUE = "test.old-cron";

/** Leaves `QUEUE` on pg-boss's own every-minute cron in `schema`, as a worker of an earlier release did. */
async function leaveOldSchedule(schema: string): Promise<void> {
  // Its own cron off, so that nothing queues the job before the client under test starts.
  const earlier = new PgBoss({ connectionString: t.url, schema, max: 1, schedule: false });
  earlier.on("error", () => undefined);
  await earlier.start();
  await earlier.createQueue(QUEUE);
  await earlier.schedule(QUEUE, "* * * * *", {}, { tz: "UTC" });
  await earlier.stop({ graceful: false, wait: true });
}

describe("schedules an earlier release left in pg-boss's own table", () => {
  it("queue nothing from this release's processes", async () => {
    await leaveOldSchedule("pgboss");
    // The same schedule, read by a client with pg-boss's cron on, as an earlier release's, in a schema of its own.
    await leaveOldSchedule("pgboss_cron");
    const cron = new PgBoss({ connectionString: t.url, schema: "pgboss_cron", max: 2 });
    cron.on("error", () => undefined);
    const app = await getBoss(t.url);
    await cron.start();
    bosses.push(cron);
    // The cron client queues the job within seconds (its cron is looked at on start, its jobs queued every 5 s).
    while ((await cron.getQueueSize(QUEUE)) === 0) await new Promise((r) => setTimeout(r, 200));
    // The app's client started first, with the same intervals; a few seconds more for good measure.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await app.getQueueSize(QUEUE)).toBe(0);
    expect(await app.getSchedules()).toHaveLength(1);
  }, 60_000);
});
