import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEMO_GAME_ID, DEMO_GAME_SECRET, DEMO_WEBHOOK_SECRET } from "@/emulator/scenario/demo";
import { fixtureScenario, SECRET, SUB } from "./fixture";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every emulator started, killed after each test whatever its outcome (one that already ended is left alone). */
const children = new Set<ChildProcessWithoutNullStreams>();

function cli(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", "emulator/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
});

function finish(
  child: ChildProcessWithoutNullStreams,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the URL the emulator prints once it listens. */
function listening(child: ChildProcessWithoutNullStreams): Promise<{ url: string; output: () => string }> {
  let stdout = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
      if (match) resolve({ url: match[1] as string, output: () => stdout });
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${stdout}`)));
  });
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("npm run emulator", () => {
  it("prints help", async () => {
    const out = await finish(cli(["--help"]));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("--scenario FILE");
    expect(out.stdout).toContain("--rate-limits");
  });

  it.each([
    [["--port", "abc", "--demo"], "--port"],
    [["--demo", "--scenario", "x.json"], "exactly one of --scenario FILE or --demo"],
    [["--port", "0"], "exactly one of --scenario FILE or --demo"],
    [["--demo", "--rate-limits", "fast"], "--rate-limits"],
    [["--demo", "--bogus"], "Unknown option"],
    [["--scenario", "/nonexistent/scenario.json"], "cannot read scenario file"],
  ])("refuses %j with a one-line error", async (args, message) => {
    const out = await finish(cli(args));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("serves the demo, prints the game id and secrets, and stops on SIGTERM", async () => {
    const child = cli(["--port", "0", "--demo", "--seed", "2", "--rate-limits", "scaled:10"]);
    const done = finish(child);
    const { url, output } = await listening(child);
    expect(output()).toContain(
      `demo game id ${DEMO_GAME_ID}, secret ${DEMO_GAME_SECRET}, webhook secret ${DEMO_WEBHOOK_SECRET}`,
    );
    const health = await fetch(`${url}/__emulator/health`);
    expect(health.status).toBe(200);
    const sub = await fetch(`${url}/api/subscriptions/player?player_email=player1%40demo.example`, {
      headers: { "X-Game-Secret-Key": DEMO_GAME_SECRET },
    });
    expect(sub.status).toBe(200);
    child.kill("SIGTERM");
    const out = await done;
    expect(out.code).toBe(0);
  });

  it("serves a scenario file and stops on SIGINT", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "emulator-cli-"));
    dirs.push(dir);
    const file = path.join(dir, "scenario.json");
    await writeFile(file, JSON.stringify(fixtureScenario()));
    const child = cli(["--port", "0", "--scenario", file]);
    const done = finish(child);
    const { url } = await listening(child);
    const call = await fetch(`${url}/api/subscriptions/${SUB.monthly}`, { headers: { "X-Game-Secret-Key": SECRET } });
    expect(call.status).toBe(200);
    child.kill("SIGINT");
    expect((await done).code).toBe(0);
  });
});
