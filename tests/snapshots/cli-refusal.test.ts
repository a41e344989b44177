import { execFile } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeGameSettings } from "@/db/queries/games";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/** `desk snapshot` ends on a refusal that cannot change with one line naming it, and nothing on stdout. */

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 5,
      renewalsPerRecipient: 2,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

/** `desk snapshot` of March for the game, with its exit code and both outputs. */
function snapshotMarch(): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ["bin/desk.mjs", "snapshot", "--game", GAME_ID, "--month", "2026-03"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: env.t.url, LOG_LEVEL: "silent", NODE_OPTIONS: "" },
  }).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("desk snapshot", () => {
  it("[cli] stops at once when the service refuses the game, with the reason on one line", async () => {
    // The emulator answers 403 to every call of a suspended game: no retry can change that.
    const response = await fetch(`${env.emulator.url}/__emulator/games/${GAME_ID}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: "suspended" }),
    });
    expect(response.ok).toBe(true);
    const result = await snapshotMarch();
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    const lines = result.stderr
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("snapshot ") && !line.includes("nodedir"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/The service refused the report: the service refused this game access .+ \(HTTP 403, \w+/);
    const pull = await env.db.selectFrom("snapshot_pull").select(["status", "attempts"]).executeTakeFirstOrThrow();
    expect(pull).toEqual({ status: "failed", attempts: 1 });
  });

  it("[cli] refuses the demo game at once when the emulator that npm start runs is stopped, saying so", async () => {
    // A port nothing listens on: the address the demo game kept from a start that has ended.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    await env.db
      .updateTable("game")
      .set({ base_url: `http://127.0.0.1:${port}` })
      .where("id", "=", GAME_ID)
      .execute();
    await mergeGameSettings(env.db, GAME_ID, { demo: true });
    const pullsBefore = await env.db.selectFrom("snapshot_pull").select("id").execute();
    const result = await snapshotMarch();
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(
      result.stderr
        .trim()
        .split("\n")
        .filter((line) => !line.includes("nodedir")),
    ).toEqual([
      `desk snapshot: ${GAME_ID} is the demo game, whose service is the emulator that npm start runs, and it is ` +
        "not running: start Payout Desk (npm start), then run this again.",
    ]);
    // Nothing was asked of the service: no pull was started.
    expect(await env.db.selectFrom("snapshot_pull").select("id").execute()).toEqual(pullsBefore);
  });
});
