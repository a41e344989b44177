// The production server of a build (`next start`) for benchmarks, signed-in sessions for it, and a small load loop
// timing each request: SESSIONS sessions at once, each asking its pages one after the other.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { buildIsCurrent } from "@/bin/build-state";
import type { Db } from "@/db";
import { getAuth } from "@/lib/auth/auth";
import { createUser } from "@/lib/auth/users";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const PASSWORD = "bench-password-1234";

export type AppServer = { url: string; close: () => Promise<void> };

/** `next start` of the current build on `port`, with the environment given (database, key); jobs off. */
export async function startAppServer(port: number, env: Record<string, string>): Promise<AppServer> {
  if (!buildIsCurrent(ROOT)) throw new Error("no current production build: run `npm run build` first");
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port)], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PAYOUT_DESK_JOBS: "off" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://localhost:${port}`;
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await done;
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/api/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, close };
    if (Date.now() > deadline) {
      await close();
      throw new Error(`${url} did not become ready`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A finance user and `count` sessions of it, each as the Cookie header a browser would send. */
export async function signedInSessions(db: Db, count: number): Promise<string[]> {
  const email = "bench-finance@payout-desk.test";
  await createUser(db, { email, role: "finance", password: PASSWORD, name: "Bench" }, { actor: null, via: "cli" });
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await getAuth().api.signInEmail({ body: { email, password: PASSWORD }, asResponse: true });
    if (!response.ok) throw new Error(`sign-in failed: ${response.status}`);
    cookies.push(
      response.headers
        .getSetCookie()
        .map((line) => line.split(";")[0])
        .join("; "),
    );
  }
  return cookies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export type LoadResult = { requests: number; p50Ms: number; p95Ms: number; maxMs: number };

/**
 * Every session asks `perSession` times for `path` (after one warm-up request each, not counted), all sessions at
 * once; each request is timed from its start to the last byte of its body. Any answer but 200 fails the bench.
 */
export async function load(baseUrl: string, cookies: string[], pathname: string, perSession: number) {
  const ask = async (cookie: string) => {
    const began = performance.now();
    const response = await fetch(`${baseUrl}${pathname}`, { headers: { cookie }, redirect: "manual" });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}`);
    return performance.now() - began;
  };
  await Promise.all(cookies.map(ask));
  const timings: number[] = [];
  await Promise.all(
    cookies.map(async (cookie) => {
      for (let i = 0; i < perSession; i++) timings.push(await ask(cookie));
    }),
  );
  const result: LoadResult = {
    requests: timings.length,
    p50Ms: Math.round(percentile(timings, 50)),
    p95Ms: Math.round(percentile(timings, 95)),
    maxMs: Math.round(Math.max(...timings)),
  };
  return result;
}
