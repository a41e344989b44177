import { KEEP_ALIVE_MS } from "../bin/server-options";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { registerDemoGame } from "../bin/demo";
import { ensureDatabase } from "../bin/runtime";
import { freePort, withDatabase } from "../db/embedded";
import { createDb, type Db } from "../db/index";
import { migrateToLatest } from "../db/migrate";
import { DEMO_GAME_ID, DEMO_WEBHOOK_SECRET } from "../emulator/scenario/demo";
import { type RunningEmulator, startEmulator } from "../emulator/server";
import { signatureHeader } from "../lib/webhooks/signature";
import { E2E_PASSWORD, userFor } from "./fixtures/users";

/**
 * A fleet on one PostgreSQL: two web servers of the production build (jobs off) and two `desk worker` processes,
 * against the emulator enforcing the documented limits four times faster (the game paced the same way). Its own
 * database and emulator beside the suite's; the build is the suite's.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const { NODE_OPTIONS: _runnerOptions, ...CHILD_ENV } = process.env;
const LIMITS = "scaled:4";

type Proc = { name: string; child: ChildProcess; output: () => string };
type Server = { url: string; proc: Proc };
type Env = Record<string, string | undefined>;

let db: Db;
let emulator: RunningEmulator;
let env: Env;
const servers: Server[] = [];
const workers: Proc[] = [];

function startProcess(name: string, args: string[], extra: Env = {}): Proc {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, ...extra } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  return { name, child, output: () => out.slice(-4_000) };
}

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function exited(proc: Proc): Promise<number | null> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return Promise.resolve(proc.child.exitCode);
  return new Promise((resolve) => proc.child.once("exit", (code) => resolve(code)));
}

async function startWorker(name: string): Promise<Proc> {
  const proc = startProcess(name, ["--import", "./bin/register.mjs", "bin/desk.ts", "worker", "--grace", "1"]);
  await until(async () => proc.output().includes("working jobs"), `${name} started`, 60_000);
  workers.push(proc);
  return proc;
}

/** Every server is told the same public address (the first one's), as behind a load balancer. */
async function startServer(name: string, port: number, publicUrl: string): Promise<Server> {
  const url = `http://localhost:${port}`;
  const proc = startProcess(name, [NEXT_BIN, "start", "-p", String(port), "--keepAliveTimeout", KEEP_ALIVE_MS], {
    NODE_ENV: "production",
    PORT: String(port),
    PAYOUT_DESK_URL: publicUrl,
    PAYOUT_DESK_JOBS: "off",
  });
  await until(async () => (await fetch(`${url}/api/health/ready`)).ok, `${name} ready`, 60_000);
  const started = { url, proc };
  servers.push(started);
  return started;
}

async function stop(proc: Proc): Promise<number | null> {
  const done = exited(proc);
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGTERM");
  return done;
}

function server(index: number): Server {
  const found = servers[index];
  if (!found) throw new Error(`no server ${index}`);
  return found;
}

async function rateLimitCounts(): Promise<{ calls: number; limited: number }> {
  const state = (await (await fetch(`${emulator.url}/__emulator/state`)).json()) as {
    rate_limit_counts: { calls: number; limited: number };
  };
  return state.rate_limit_counts;
}

async function pullsOf(month: string) {
  return db
    .selectFrom("snapshot_pull")
    .select(["id", "status", "via", "snapshot_id", "attempts"])
    .where("game_id", "=", DEMO_GAME_ID)
    .where("window_start", "=", new Date(`${month}-01T00:00:00Z`))
    .execute();
}

/** Every pull published at most one snapshot, and none is left under way. */
async function expectEachPublishedOnce(month: string) {
  const pulls = await until(async () => {
    const list = await pullsOf(month);
    return list.length > 0 && list.every((p) => ["complete", "failed"].includes(p.status)) ? list : null;
  }, `pulls of ${month} finished`);
  const snapshots = await db
    .selectFrom("snapshot")
    .select(["id", "pull_id"])
    .where("game_id", "=", DEMO_GAME_ID)
    .where("window_start", "=", new Date(`${month}-01T00:00:00Z`))
    .execute();
  expect(new Set(snapshots.map((s) => s.pull_id)).size).toBe(snapshots.length);
  expect(pulls.filter((p) => p.status === "complete").length).toBe(snapshots.length);
  return { pulls, snapshots };
}

async function signInThrough(page: Page, signInServer: string, actionServer: string): Promise<number> {
  const user = userFor("finance");
  let redirected = 0;
  // The sign-in form's action is posted to the other server: it must know the action id and make the session.
  await page.route(`${signInServer}/sign-in`, async (route) => {
    if (route.request().method() === "POST" && route.request().headers()["next-action"]) {
      redirected += 1;
      // As a load balancer would: the public host is forwarded, so the action's origin check sees its own host.
      const headers = { ...route.request().headers(), "x-forwarded-host": new URL(signInServer).host };
      await route.continue({ url: `${actionServer}/sign-in`, headers });
    } else await route.continue();
  });
  await page.goto(`${signInServer}/sign-in`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByLabel("Password").press("Enter");
  await expect(page).toHaveURL(/\/payouts$/);
  await page.unroute(`${signInServer}/sign-in`);
  return redirected;
}

async function askSnapshot(page: Page, month: string): Promise<void> {
  await page.getByRole("button", { name: "Take snapshot" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Month" }).fill(month);
  await dialog.getByRole("button", { name: "Take snapshot" }).click();
  await expect(dialog).toBeHidden();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const suiteUrl = process.env.E2E_DATABASE_URL;
  if (!suiteUrl) throw new Error("E2E_DATABASE_URL is not set (e2e/global-setup.ts)");
  await ensureDatabase(withDatabase(suiteUrl, "postgres"), "payout_desk_fleet");
  const databaseUrl = withDatabase(suiteUrl, "payout_desk_fleet");
  db = createDb(databaseUrl, { max: 4 });
  await migrateToLatest(db);
  // The suite's key: the game's secrets below are sealed in this process, which read it at start.
  const key = process.env.PAYOUT_DESK_KEY;
  if (!key) throw new Error("PAYOUT_DESK_KEY is not set (e2e/global-setup.ts)");
  env = {
    ...CHILD_ENV,
    DATABASE_URL: databaseUrl,
    PAYOUT_DESK_KEY: key,
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: "",
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: "info",
  };
  const finance = userFor("finance");
  const added = startProcess("users", [
    ...["--import", "./bin/register.mjs", "bin/desk.ts", "users", "add", "--email", finance.email],
    ...["--role", "finance", "--password", E2E_PASSWORD, "--name", finance.name],
  ]);
  expect(await exited(added), added.output()).toBe(0);

  const ports = [await freePort(), await freePort()];
  emulator = await startEmulator({
    demo: { seed: 1 },
    rateLimits: LIMITS,
    webhookUrl: ports.map((p) => `http://localhost:${p}/api/webhooks/service/${DEMO_GAME_ID}`),
    webhookSecret: DEMO_WEBHOOK_SECRET,
  });
  await registerDemoGame(db, emulator.url, { pacing: LIMITS });
  const publicUrl = `http://localhost:${ports[0]}`;
  await Promise.all([
    startServer("web-a", ports[0] as number, publicUrl),
    startServer("web-b", ports[1] as number, publicUrl),
  ]);
  await startWorker("worker-1");
});

test.afterAll(async () => {
  for (const proc of [...workers, ...servers.map((s) => s.proc)]) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGKILL");
    await exited(proc);
  }
  await emulator?.close();
  await db?.destroy();
});

test("[finance] a session made through one server's action on the other is valid on both", async ({ page }) => {
  const [a, b] = [server(0), server(1)];
  expect(await signInThrough(page, a.url, b.url)).toBe(1);
  for (const target of [a, b]) {
    await page.goto(`${target.url}/payouts`);
    await expect(page).toHaveURL(`${target.url}/payouts`);
    await expect(page.getByRole("button", { name: "Take snapshot" })).toBeVisible();
  }
});

test("[finance] SIGTERM to the worker running a pull loses nothing: the other worker completes it", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const a = server(0);
  await signInThrough(page, a.url, a.url);
  // The first report page is held for a while, so the pull is under way when its worker is told to stop.
  const fault = await fetch(`${emulator.url}/__emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ route: "/api/subscriptions/reporting/attribution", fault: "hang", hang_ms: 30_000 }),
  });
  expect(fault.ok).toBe(true);
  await askSnapshot(page, "2026-07");
  await until(async () => (await pullsOf("2026-07")).some((p) => p.status === "running"), "the pull running");
  const [first] = workers as [Proc];
  await startWorker("worker-2");
  expect(await stop(first)).toBe(0);
  const { pulls, snapshots } = await expectEachPublishedOnce("2026-07");
  expect(pulls).toHaveLength(1);
  expect(pulls[0]?.status).toBe("complete");
  expect(snapshots).toHaveLength(1);
  await startWorker("worker-3");
});

test("[finance] pulls asked from both servers and the CLI at once: each pull publishes once, 429s stay rare", async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  const [a, b] = [server(0), server(1)];
  await signInThrough(page, a.url, a.url);
  const other = await context.newPage();
  await other.goto(`${b.url}/payouts`);
  const cli = startProcess("cli", [
    "--import",
    "./bin/register.mjs",
    "bin/desk.ts",
    "snapshot",
    "--game",
    DEMO_GAME_ID,
    "--month",
    "2026-08",
  ]);
  await Promise.all([askSnapshot(page, "2026-08"), askSnapshot(other, "2026-08")]);
  const cliCode = await exited(cli);
  const { pulls } = await expectEachPublishedOnce("2026-08");
  // The two servers' requests made one pull at the most: a request while one is under way joins it (and both join
  // the CLI's when it claimed the window first).
  expect(pulls.filter((p) => p.via === "ui").length).toBeLessThanOrEqual(1);
  expect(pulls.length).toBeLessThanOrEqual(2);
  // The CLI either took its own pull (published once) or was told the window is being pulled.
  if (cliCode !== 0) expect(cli.output()).toMatch(/already running|pulling this window/i);
  const counts = await rateLimitCounts();
  expect(counts.calls).toBeGreaterThan(0);
  expect(counts.limited * 100).toBeLessThanOrEqual(counts.calls);
});

test("webhooks delivered to both servers are stored once and processed once by the workers", async () => {
  test.setTimeout(120_000);
  const events = Array.from({ length: 150 }, (_, i) =>
    JSON.stringify({
      event_id: `evt_fleet_${i}`,
      event_type: i % 2 === 0 ? "subscription.canceled" : "subscription.renewed",
      created_at: "2026-08-15T12:00:00Z",
      tenant_id: DEMO_GAME_ID,
      data: { subscription_id: `SUB_1767225600_FLEET${String(i).padStart(3, "0")}`, access_until: null },
    }),
  );
  const statuses: number[] = [];
  await Promise.all(
    servers.flatMap((target) =>
      events.map(async (body, i) => {
        const response = await fetch(`${target.url}/api/webhooks/service/${DEMO_GAME_ID}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-service-signature": signatureHeader(body, Math.floor(Date.now() / 1000), [DEMO_WEBHOOK_SECRET]),
            "x-service-idempotency-key": `idem_fleet_${i}`,
          },
          body,
        });
        statuses.push(response.status);
      }),
    ),
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  const rows = await until(async () => {
    const list = await db
      .selectFrom("webhook_event")
      .select(["event_id", "status", "attempts"])
      .where("event_id", "like", "evt_fleet_%")
      .execute();
    return list.length === events.length && list.every((r) => r.status !== "pending") ? list : null;
  }, "every event processed");
  expect(rows.filter((r) => r.status !== "processed" || r.attempts !== 1)).toEqual([]);
});

test("[finance] SIGTERM to a web server during an export: the file arrives whole or visibly cut", async ({ page }) => {
  test.setTimeout(120_000);
  const a = server(0);
  await signInThrough(page, a.url, a.url);
  const snapshot = await db
    .selectFrom("snapshot")
    .select(["id", "line_count"])
    .where("game_id", "=", DEMO_GAME_ID)
    .where("window_start", "=", new Date("2026-08-01T00:00:00Z"))
    .orderBy("version", "desc")
    .executeTakeFirstOrThrow();
  const cookie = (await page.context().cookies(a.url)).map((c) => `${c.name}=${c.value}`).join("; ");
  const response = await fetch(`${a.url}/api/exports/lines?snapshot=${snapshot.id}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  const first = await reader.read();
  if (first.value) chunks.push(first.value);
  const stopped = stop(a.proc);
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch {
    cut = true;
  }
  await stopped;
  if (!cut) {
    // Whole: the header and every line, ending with a complete record.
    const text = Buffer.concat(chunks).toString("utf8");
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.trimEnd().split("\r\n")).toHaveLength(snapshot.line_count + 1);
  }
});
