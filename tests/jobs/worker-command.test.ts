import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, stopBoss } from "../../lib/jobs/queue";
import { reconcileRefundsJob } from "../../lib/refunds/reconcile-job";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

const ROOT = path.resolve(import.meta.dirname, "../..");
let t: TestDatabase;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
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

/** Makes the database look one migration behind this release; the function returned puts it back. */
async function forgetLastMigration(): Promise<() => Promise<void>> {
  const last = await sql<{ name: string; timestamp: string }>`
    select name, timestamp from kysely_migration order by name desc limit 1`.execute(t.db);
  const { name, timestamp } = last.rows[0]!;
  await sql`delete from kysely_migration where name = ${name}`.execute(t.db);
  return async () => {
    await sql`insert into kysely_migration (name, timestamp) values (${name}, ${timestamp})`.execute(t.db);
  };
}

function startWorker(databaseUrl = t.url) {
  const worker = spawn(process.execPath, ["bin/desk.mjs", "worker", "--grace", "5"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PAYOUT_DESK_KEY: process.env.PAYOUT_DESK_KEY,
      NODE_OPTIONS: "",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(worker);
  let stdout = "";
  let stderr = "";
  worker.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  worker.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    worker.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { process: worker, exited, stdout: () => stdout, stderr: () => stderr };
}

describe("npm run desk -- worker", () => {
  it("works queued jobs and, on SIGTERM, stops gracefully with exit 0 and a JSON summary on stdout", async () => {
    const worker = startWorker();
    await waitForOutput(worker.process, worker.stderr, "desk worker: working jobs");
    const jobId = await enqueue(reconcileRefundsJob, { attemptId: "9b2f8a53-3f0c-4c55-9d4e-1b7a3c1f2e60" });
    expect(jobId).toBeTruthy();
    while ((await jobState(jobId!)) !== "completed") {
      expect(worker.process.exitCode, worker.stderr()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    worker.process.kill("SIGTERM");
    const { code } = await worker.exited;
    expect(code, worker.stderr()).toBe(0);
    expect(worker.stderr()).toContain("desk worker: SIGTERM: taking no new jobs");
    const summary = JSON.parse(worker.stdout());
    expect(summary).toMatchObject({ worker: "stopped", signal: "SIGTERM", jobsFailed: 0, jobsHandedBack: 0 });
    expect(summary.jobsFinished).toBeGreaterThanOrEqual(1);
    // On a real database without the address people reach the desk at: its emails' links would be localhost's.
    expect(worker.stderr()).toContain("desk worker: PAYOUT_DESK_URL is not set");
  });

  it("started before its release's migrations, takes no job until the database has them all", async () => {
    const restore = await forgetLastMigration();
    const worker = startWorker();
    try {
      await waitForOutput(worker.process, worker.stderr, "desk worker: waiting for 1 migration(s) of this release");
      const jobId = await enqueue(reconcileRefundsJob, { attemptId: "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5" });
      // Two polls of the database later the job is still untouched.
      await new Promise((resolve) => setTimeout(resolve, 4500));
      expect(await jobState(jobId!)).toBe("created");
      expect(worker.stderr()).not.toContain("working jobs");
    } finally {
      await restore();
    }
    await waitForOutput(worker.process, worker.stderr, "desk worker: working jobs");
    worker.process.kill("SIGTERM");
    const { code } = await worker.exited;
    expect(code, worker.stderr()).toBe(0);
  });

  it("stopped while it waits for migrations, exits 0 having taken no job", async () => {
    const restore = await forgetLastMigration();
    try {
      const worker = startWorker();
      await waitForOutput(worker.process, worker.stderr, "desk worker: waiting for 1 migration(s)");
      worker.process.kill("SIGTERM");
      const { code } = await worker.exited;
      expect(code, worker.stderr()).toBe(0);
      expect(JSON.parse(worker.stdout())).toEqual({
        worker: "stopped",
        signal: "SIGTERM",
        jobsFinished: 0,
        jobsFailed: 0,
        jobsHandedBack: 0,
      });
    } finally {
      await restore();
    }
  });

  it("exits with what to fix when the database refuses it for good, rather than waiting without end", async () => {
    const missing = new URL(t.url);
    missing.pathname = "/no_such_database_for_the_worker";
    const worker = startWorker(missing.toString());
    const { code } = await worker.exited;
    expect(code).not.toBe(0);
    expect(worker.stderr()).toMatch(/the database at \S+\/no_such_database_for_the_worker does not exist/);
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
