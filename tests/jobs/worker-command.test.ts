import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, stopBoss } from "../../lib/jobs/queue";
import { reconcileRefundsJob } from "../../lib/refunds/reconcile-job";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

const ROOT = path.resolve(import.meta.dirname, "../..");
let t: TestDatabase;
let child: ChildProcess | null = null;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await new Promise((resolve) => child?.once("exit", resolve));
  }
  await stopBoss();
  await t?.drop();
});

/** Resolves once `text` has appeared in what the stream wrote so far (or rejects when the process ends first). */
function waitForOutput(process: ChildProcess, read: () => string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (read().includes(text)) {
        process.stderr?.off("data", check);
        process.off("exit", ended);
        resolve();
      }
    };
    const ended = () => reject(new Error(`desk worker ended before writing "${text}":\n${read()}`));
    process.stderr?.on("data", check);
    process.once("exit", ended);
    check();
  });
}

async function jobState(id: string): Promise<string | undefined> {
  const result = await sql<{ state: string }>`select state from pgboss.job where id = ${id}`.execute(t.db);
  return result.rows[0]?.state;
}

describe("npm run desk -- worker", () => {
  it("works queued jobs and, on SIGTERM, stops gracefully with exit 0 and a JSON summary on stdout", async () => {
    const worker = spawn(process.execPath, ["bin/desk.mjs", "worker", "--grace", "5"], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        PAYOUT_DESK_KEY: process.env.PAYOUT_DESK_KEY,
        NODE_OPTIONS: "",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = worker;
    let stdout = "";
    let stderr = "";
    worker.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    worker.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      worker.once("exit", (code, signal) => resolve({ code, signal })),
    );

    await waitForOutput(worker, () => stderr, "desk worker: working jobs");
    const jobId = await enqueue(reconcileRefundsJob, { attemptId: "9b2f8a53-3f0c-4c55-9d4e-1b7a3c1f2e60" });
    expect(jobId).toBeTruthy();
    while ((await jobState(jobId!)) !== "completed") {
      expect(worker.exitCode, stderr).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    worker.kill("SIGTERM");
    const { code } = await exited;
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("desk worker: SIGTERM: taking no new jobs");
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ worker: "stopped", signal: "SIGTERM", jobsFailed: 0, jobsHandedBack: 0 });
    expect(summary.jobsFinished).toBeGreaterThanOrEqual(1);
  });

  it("refuses a grace period that is not a whole number of seconds", async () => {
    const refused = spawn(process.execPath, ["bin/desk.mjs", "worker", "--grace", "soon"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: t.url, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    refused.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => refused.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--grace: must be a whole number of seconds");
  });
});
