// The production server of a build (`next start`) for benchmarks, signed-in sessions for it, and a small load loop
// timing each request (bench/load-client.ts, in a process of its own).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { buildIsCurrent } from "@/bin/build-state";
import type { Db } from "@/db";
import type { LoadResult } from "./load-client";
import { getAuth } from "@/lib/auth/auth";
import { createUser } from "@/lib/auth/users";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const PASSWORD = "bench-password-1234";

export type AppServer = { url: string; pid: number | undefined; close: () => Promise<void> };

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
    if (ok) return { url, pid: child.pid, close };
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

/**
 * `load` (bench/load-client.ts) run in a small process of its own, so that the bench process's heap (the generated
 * scenario, the snapshots) never pauses the client between a request and its timing.
 */
export async function loadApart(
  baseUrl: string,
  cookies: string[],
  pathname: string,
  perSession: number,
): Promise<LoadResult> {
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", "bench/load-client.ts"], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin?.end(JSON.stringify({ baseUrl, cookies, pathname, perSession }));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the load client for ${pathname} exited with ${code}`);
  return JSON.parse(out) as LoadResult;
}
