import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("desk snapshot", () => {
  it("[cli] stops at once when the service refuses the game, with the reason on one line", async () => {
    // The emulator answers 403 to every call of a suspended game: no retry can change that.
    const response = await fetch(`${env.emulator.url}/__emulator/games/${GAME_ID}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: "suspended" }),
    });
    expect(response.ok).toBe(true);
    const result = await run(process.execPath, ["bin/desk.mjs", "snapshot", "--game", GAME_ID, "--month", "2026-03"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: env.t.url, LOG_LEVEL: "silent", NODE_OPTIONS: "" },
    }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
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
});
