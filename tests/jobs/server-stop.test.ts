import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

const ROOT = path.resolve(import.meta.dirname, "../..");
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

/** The server under test; killed after the test if it is still running (it never became ready, say). */
let running: ChildProcess | undefined;
afterEach(() => {
  if (running && running.exitCode === null && running.signalCode === null) running.kill("SIGKILL");
});

describe("the app server's workers on SIGTERM", () => {
  it("stop gracefully before the server's own exit goes through", async () => {
    const child = spawn(process.execPath, ["--import", "./bin/register.mjs", "tests/jobs/server-stop-child.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        NEXT_RUNTIME: "nodejs",
        NODE_OPTIONS: "",
        LOG_LEVEL: "info",
        PAYOUT_DESK_JOBS: "on",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running = child;
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const check = () => (output.includes("server ready") ? resolve() : undefined);
      child.stderr.on("data", check);
      child.once("exit", () => reject(new Error(`the process ended before it was ready:\n${output}`)));
    });
    child.kill("SIGTERM");
    // The server's exit code (its listener's), reached only after the workers' stop was logged.
    expect(await exited, output).toBe(143);
    const lines = output.split("\n");
    const stopping = lines.findIndex((line) => line.includes('"message":"stopping workers"'));
    const stopped = lines.findIndex((line) => line.includes('"message":"workers stopped"'));
    expect(stopping, output).toBeGreaterThanOrEqual(0);
    expect(stopped, output).toBeGreaterThan(stopping);
    expect(JSON.parse(lines[stopped]!)).toMatchObject({ jobsFailed: 0, running: 0 });
  });
});
