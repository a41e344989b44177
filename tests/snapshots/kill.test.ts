import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopBoss } from "@/lib/jobs/queue";
import { recoverPulls, takeSnapshotNow } from "@/lib/snapshots/pull";
import { monthWindow } from "@/lib/time";
import { buildScenario, GAME_ID, publishedCounts, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";
import { waitFor } from "../support/wait";

/**
 * A pull killed part-way (SIGKILL of the CLI process, mid-read) leaves nothing published, and the window is then
 * pulled to completion: by running it again, or by the recovery job re-queuing the abandoned pull.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const WINDOW = monthWindow("2026-03");
let env: SnapshotTestEnv;

beforeAll(async () => {
  // 6,500 recipients: 65 pages, more than the 60 aggregate calls a pacing window admits.
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 6_500,
      renewalsPerRecipient: 1,
      reversals: 20,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
    // A pacing window of 1,200 s: after 60 pages the pull waits, so it is still running when killed.
    { pacing: "scaled:0.05" },
  );
});
afterAll(async () => {
  await stopBoss();
  await env?.close();
});

describe("a pull killed mid-way", () => {
  it("[cli] leaves no visible partial snapshot, and a re-run completes the same pull", async () => {
    const child = spawn(process.execPath, ["bin/desk.mjs", "snapshot", "--game", GAME_ID, "--month", "2026-03"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: env.t.url, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(signal ? null : code)),
    );

    let pull: { id: string; status: string; pages_fetched: number };
    try {
      pull = await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`the CLI exited early: ${stderr}`);
          return env.db
            .selectFrom("snapshot_pull")
            .select(["id", "status", "pages_fetched"])
            .where("pages_fetched", ">=", 60)
            .executeTakeFirst();
        },
        { what: () => `the pull to read 60 pages; the CLI wrote:\n${stderr}` },
      );
    } finally {
      // Killed here whatever happened: a pull left running would outlive the test.
      child.kill("SIGKILL");
    }
    expect(pull.status).toBe("running");
    expect(await exited).toBeNull();
    expect(stderr).toMatch(/pages \d+\/\d+/);

    // Nothing of the killed pull is visible.
    expect(Object.values(await publishedCounts(env.db)).every((n) => n === 0)).toBe(true);
    const orphan = await env.db
      .selectFrom("snapshot_pull")
      .select(["status", "snapshot_id"])
      .where("id", "=", pull.id)
      .executeTakeFirstOrThrow();
    expect(orphan).toEqual({ status: "running", snapshot_id: null });

    // The recovery job sees the dead worker (no heartbeat, lock released) and queues the pull again. PostgreSQL
    // ends the killed process's session (rolling back what it wrote, releasing its lock) once it notices the closed
    // connection, which may take a moment: until then the pull still looks alive and is rightly left alone.
    const recovered = await waitFor(
      async () => {
        const ids = await recoverPulls(env.db, Date.now() + 120_000);
        return ids.length > 0 ? ids : null;
      },
      { what: "the recovery job to see the killed pull's session gone" },
    );
    expect(recovered).toEqual([pull.id]);

    // Run again (pacing off now): the same pull is adopted and completes.
    await env.db
      .updateTable("game")
      .set({ settings: JSON.stringify({ pacing: "off" }) })
      .where("id", "=", GAME_ID)
      .execute();
    const summary = await takeSnapshotNow(env.db, { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" });
    expect(summary.pullId).toBe(pull.id);
    expect(summary.recipients).toBe(6_500);
    expect(summary.version).toBe(1);
    const finished = await env.db
      .selectFrom("snapshot_pull")
      .select(["status", "attempts"])
      .where("id", "=", pull.id)
      .executeTakeFirstOrThrow();
    expect(finished).toEqual({ status: "complete", attempts: 2 });
    expect((await publishedCounts(env.db)).snapshot_recipient).toBe(6_500);
  });
});
