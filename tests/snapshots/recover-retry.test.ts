import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updatePull } from "@/db/queries/snapshot-pulls";
import { getBoss, stopBoss } from "@/lib/jobs/queue";
import { recoverPulls, requestSnapshot } from "@/lib/snapshots/pull";
import { pullSnapshotJob } from "@/lib/snapshots/pull-job";
import { monthWindow } from "@/lib/time";
import { buildScenario, GAME_ID, type SnapshotTestEnv, startSnapshotEnv } from "./helpers";

/**
 * Recovery queues a pull again when nothing shows it alive (a worker that died). A pull whose job failed and waits out
 * pg-boss's retry delay is as silent, yet its job is waiting: queued again, it would skip that delay and its job's
 * next run would find it busy or done.
 */

let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 5,
      renewalsPerRecipient: 1,
      start: "2026-04-01T00:00:00Z",
      end: "2026-05-01T00:00:00Z",
    }),
  );
});
afterAll(async () => {
  await stopBoss();
  await env?.close();
});

describe("recovering silent pulls", () => {
  it("leaves a pull whose job waits out its retry delay, and queues one whose job is gone", async () => {
    const { pullId } = await requestSnapshot(env.db, {
      gameId: GAME_ID,
      window: monthWindow("2026-04"),
      requestedBy: null,
      via: "ui",
    });
    const boss = await getBoss();
    const [job] = await boss.fetch(pullSnapshotJob.name);
    if (!job) throw new Error("the pull's job is queued");
    await boss.fail(pullSnapshotJob.name, job.id, { message: "the service answered 503" });
    expect((await boss.getJobById(pullSnapshotJob.name, job.id))?.state).toBe("retry");
    // The attempt ended "retrying" some minutes ago: nothing has shown the pull alive since.
    const silentSince = new Date(Date.now() - 10 * 60_000);
    await updatePull(env.db, pullId, { status: "retrying", heartbeat_at: silentSince, updated_at: silentSince });
    expect(await recoverPulls(env.db)).toEqual([]);

    // Its job gone (deleted, or expired with no retry left): queued again.
    await boss.deleteJob(pullSnapshotJob.name, job.id);
    expect(await recoverPulls(env.db)).toEqual([pullId]);
  });
});
