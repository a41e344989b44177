import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildScenario, GAME_ID, type SnapshotTestEnv, startSnapshotEnv } from "../snapshots/helpers";
import { SLACK } from "../support/slack";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let env: SnapshotTestEnv;
let dir: string;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 6,
      renewalsPerRecipient: 2,
      reversals: 1,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-stdout-"));
});
afterAll(async () => {
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The command as the README gives it for scripts: `npm run -s desk -- …` (without -s npm prints its banner on stdout).
 */
async function desk(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const { stdout, stderr } = await run("npm", ["run", "-s", "desk", "--", ...args], {
    cwd: ROOT,
    // Info logs on: a log line on stdout would break the summary.
    env: {
      ...process.env,
      DATABASE_URL: env.t.url,
      PAYOUT_DESK_KEY: process.env.PAYOUT_DESK_KEY,
      LOG_LEVEL: "info",
      NODE_OPTIONS: "",
    },
  });
  return { stdout, stderr };
}

/** stdout holds exactly one JSON value: JSON.parse refuses anything before or after it. */
function onlyJson(stdout: string): unknown {
  expect(stdout.trim().length).toBeGreaterThan(0);
  return JSON.parse(stdout);
}

describe("npm run -s desk -- … > summary.json", () => {
  it(
    "writes exactly one JSON value on stdout for every command with a summary; logs and progress go to stderr",
    async () => {
      const summaries: Record<string, unknown> = {};
      const commands: [string, string[]][] = [
        ["migrate", ["migrate"]],
        [
          "users add",
          ["users", "add", "--email", "ops@payout-desk.test", "--role", "finance", "--password", "a-long-password"],
        ],
        ["users set-role", ["users", "set-role", "--email", "ops@payout-desk.test", "--role", "admin"]],
        ["users list", ["users", "list"]],
        [
          "games add",
          [
            "games",
            "add",
            "--id",
            "g-out",
            "--name",
            "Out",
            "--env",
            "sandbox",
            "--base-url",
            "http://127.0.0.1:9",
            "--secret",
            "gs_test_stdout_1234",
          ],
        ],
        ["games list", ["games", "list"]],
        ["snapshot", ["snapshot", "--game", GAME_ID, "--month", "2026-03"]],
      ];
      for (const [name, args] of commands) {
        const { stdout } = await desk(...args);
        summaries[name] = onlyJson(stdout);
      }
      const snapshot = summaries.snapshot as { snapshotId: string };
      expect(snapshot.snapshotId).toMatch(/^[0-9a-f-]{36}$/);

      const exported = await desk(
        "export",
        "--snapshot",
        snapshot.snapshotId,
        "--kind",
        "lines",
        "--out",
        path.join(dir, "lines.csv"),
      );
      expect(onlyJson(exported.stdout)).toMatchObject({ kind: "lines" });

      const keyFile = path.join(dir, "new.key");
      await writeFile(keyFile, randomBytes(32).toString("base64"), { mode: 0o600 });
      const rotated = await desk("keys", "rotate", "--new-key-file", keyFile);
      expect(onlyJson(rotated.stdout)).toMatchObject({ rotated: true });
      expect(rotated.stderr).toContain("keys rotate:");
    },
    // About twenty CLI processes in a row, each starting Node and its own embedded runtime.
    240_000 * SLACK,
  );
});
