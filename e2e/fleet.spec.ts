import { KEEP_ALIVE_MS } from "../bin/server-options";
import { get, type IncomingMessage } from "node:http";
import path from "node:path";
import { expect, type Page, test } from "./fixtures/test";
import { registerDemoGame } from "../bin/demo";
import { ensureDatabase } from "../bin/runtime";
import { DEFAULT_AUTOMATION } from "../core/game-automation";
import { freePort, withDatabase } from "../db/embedded";
import { createDb, type Db } from "../db/index";
import { migrateToLatest } from "../db/migrate";
import { updateGameAutomation } from "../db/queries/webhooks";
import { DEMO_GAME_ID, DEMO_WEBHOOK_SECRET } from "../emulator/scenario/demo";
import { type RunningEmulator, startEmulator } from "../emulator/server";
import { JOBS } from "../lib/jobs/registry";
import { signatureHeader } from "../lib/webhooks/signature";
import {
  type Env,
  exited,
  type Proc,
  ROOT,
  askSnapshot,
  expectEachPublishedOnce,
  pullsOf,
  rateLimitCounts,
  settledScheduledRuns,
  signInThrough as signInThroughAs,
  startProcess as startProcessIn,
  stop,
  until,
} from "./fixtures/fleet";
import { emulatorAccess } from "./fixtures/emulator";
import { findRefundCandidate, refundOutcome, reviewRefund } from "./fixtures/refunds";
import { E2E_PASSWORD, userFor } from "./fixtures/users";
import { SLACK } from "./fixtures/slack";

/**
 * A fleet on one PostgreSQL: two web servers of the production build (jobs off) and two `desk worker` processes,
 * against the emulator enforcing the documented limits four times faster (the game paced the same way). Its own
 * database and emulator beside the suite's; the build is the suite's. Scheduled jobs run every few seconds here
 * (PAYOUT_DESK_SCHEDULE_SECONDS), so the spec sees many of their periods.
 */

const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const { NODE_OPTIONS: _runnerOptions, ...CHILD_ENV } = process.env;
const LIMITS = "scaled:4";
// A run still waiting when the next period begins takes that period too: periods leave a busy machine room for a run
// paced behind the pulls. A stopped worker's grace lets its scheduled jobs finish (one handed back would run twice).
const SCHEDULE_SECONDS = 10;
const GRACE_SECONDS = 15;
const SUPPORT_A = userFor("support");
const SUPPORT_B = { email: "support-b@e2e.test", name: "Sue Support", role: "support" as const };

type Server = { url: string; proc: Proc };

let db: Db;
let emulator: RunningEmulator;
let env: Env;
const servers: Server[] = [];
const workers: Proc[] = [];

function startProcess(name: string, args: string[], extra: Env = {}): Proc {
  return startProcessIn(env, name, args, extra);
}

const desk = (...args: string[]) => ["bin/desk.mjs", ...args];

async function startWorker(name: string): Promise<Proc> {
  const proc = startProcess(name, desk("worker", "--grace", String(GRACE_SECONDS)));
  // Kept from the start, so that the suite's stop ends it even when it never gets ready.
  workers.push(proc);
  await until(async () => proc.output().includes("working jobs"), `${name} started`, 60_000 * SLACK);
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
  const started = { url, proc };
  servers.push(started);
  await until(async () => (await fetch(`${url}/api/health/ready`)).ok, `${name} ready`, 60_000 * SLACK);
  return started;
}

function server(index: number): Server {
  const found = servers[index];
  if (!found) throw new Error(`no server ${index}`);
  return found;
}

function signInThrough(page: Page, signInServer: string, actionServer: string): Promise<number> {
  return signInThroughAs(page, signInServer, actionServer, userFor("finance"));
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000 * SLACK);
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
    PAYOUT_DESK_SCHEDULE_SECONDS: String(SCHEDULE_SECONDS),
  };
  const added = [userFor("finance"), SUPPORT_A, SUPPORT_B].map((user) =>
    startProcess(
      `users ${user.email}`,
      desk("users", "add", "--email", user.email, "--role", user.role, "--password", E2E_PASSWORD, "--name", user.name),
    ),
  );
  for (const proc of added) expect(await exited(proc), proc.output()).toBe(0);

  const ports = [await freePort(), await freePort()];
  emulator = await startEmulator({
    demo: { seed: 1 },
    rateLimits: LIMITS,
    webhookUrl: ports.map((p) => `http://localhost:${p}/api/webhooks/service/${DEMO_GAME_ID}`),
    webhookSecret: DEMO_WEBHOOK_SECRET,
  });
  await registerDemoGame(db, emulator.url, { pacing: LIMITS });
  // No automatic pulls here: the scheduled-pulls job runs every period and queues none, so every pull the tests
  // count is one they asked for.
  await updateGameAutomation(db, DEMO_GAME_ID, {
    ...DEFAULT_AUTOMATION,
    pullPreviousMonth: false,
    pullCurrentMonthDaily: false,
  });
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
  test.setTimeout(180_000 * SLACK);
  const a = server(0);
  await signInThrough(page, a.url, a.url);
  // The first report page is held, so the pull is under way when its worker is told to stop (and let go once that
  // worker has handed its jobs back: what the pull does after that cannot publish twice).
  await emulatorAccess(() => emulator.url).admin("/faults", {
    route: "/api/subscriptions/reporting/attribution",
    fault: "hang",
    hang_ms: 120_000 * SLACK, // released below, once the worker has handed the pull back
  });
  await askSnapshot(page, "2026-07");
  await until(async () => (await pullsOf(db, "2026-07")).some((p) => p.status === "running"), "the pull running");
  const [first] = workers as [Proc];
  await startWorker("worker-2");
  const stopped = stop(first);
  await until(async () => first.output().includes("desk worker: stopped"), "worker-1 handed its jobs back");
  for (const release of [...emulator.runtime.hangs]) release();
  expect(await stopped).toBe(0);
  const { pulls, snapshots } = await expectEachPublishedOnce(db, "2026-07");
  expect(pulls).toHaveLength(1);
  expect(pulls[0]?.status).toBe("complete");
  expect(snapshots).toHaveLength(1);
  await startWorker("worker-3");
});

test("[finance] pulls asked from both servers and the CLI at once: each pull publishes once, 429s stay rare", async ({
  page,
  context,
}) => {
  test.setTimeout(240_000 * SLACK);
  const [a, b] = [server(0), server(1)];
  await signInThrough(page, a.url, a.url);
  const other = await context.newPage();
  await other.goto(`${b.url}/payouts`);
  // The first report page is answered but held until both servers have taken their requests, so the pull the first
  // request starts is still under way when the second arrives, however slowly either page is driven. (A request made
  // after a pull has published starts a new version, as it should.)
  await emulatorAccess(() => emulator.url).admin("/faults", {
    route: "/api/subscriptions/reporting/attribution",
    fault: "delay",
    hang_ms: 120_000,
  });
  const cli = startProcess("cli", desk("snapshot", "--game", DEMO_GAME_ID, "--month", "2026-08"));
  await Promise.all([askSnapshot(page, "2026-08"), askSnapshot(other, "2026-08")]);
  await until(async () => emulator.runtime.hangs.size > 0, "a pull holding the first report page");
  for (const release of [...emulator.runtime.hangs]) release();
  const cliCode = await exited(cli);
  const { pulls } = await expectEachPublishedOnce(db, "2026-08");
  // The two servers' requests made one pull at the most: a request while one is under way joins it (and both join
  // the CLI's when it claimed the window first).
  expect(pulls.filter((p) => p.via === "ui").length).toBeLessThanOrEqual(1);
  expect(pulls.length).toBeLessThanOrEqual(2);
  // The CLI either took its own pull (published once) or was told the window is being pulled.
  if (cliCode !== 0) expect(cli.output()).toMatch(/already running|pulling this window/i);
  const counts = await rateLimitCounts(emulator.url);
  expect(counts.calls).toBeGreaterThan(0);
  expect(counts.limited * 100).toBeLessThanOrEqual(counts.calls);
});

test("webhooks delivered to both servers are stored once and processed once by the workers", async () => {
  test.setTimeout(120_000 * SLACK);
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

test("[support] refunds asked on both servers at once land once at the service", async ({ browser }) => {
  test.setTimeout(180_000 * SLACK);
  const [a, b] = [server(0), server(1)];
  const service = emulatorAccess(() => emulator.url);
  const used = new Set<string>();
  const same = await findRefundCandidate(service, used, { minAmountUsd: 3 });
  used.add(same.subscriptionId);
  const raced = await findRefundCandidate(service, used, { minAmountUsd: 3 });
  const pages = await Promise.all(
    [SUPPORT_A, SUPPORT_B].map(async (user, i) => {
      const page = await (await browser.newContext()).newPage();
      const target = i === 0 ? a : b;
      await signInThroughAs(page, target.url, target.url, user);
      return { page, target };
    }),
  );

  // The same review confirmed by two people on two servers: one attempt, one call's refund, its receipt shown to the
  // one who made it; the other is told who refunded what, whether it landed before or while their request waited.
  await Promise.all(pages.map(({ page, target }) => reviewRefund(page, target.url, same.periodId, "1.00")));
  await Promise.all(pages.map(({ page }) => page.getByRole("button", { name: "Refund USD 1.00" }).click()));
  const sameOutcomes = await Promise.all(pages.map(({ page }) => refundOutcome(page)));
  expect([...sameOutcomes].sort()).toEqual(["refunded", "refused"]);
  const maker = [SUPPORT_A, SUPPORT_B][sameOutcomes.indexOf("refunded")];
  const told = pages[sameOutcomes.indexOf("refused")]?.page;
  if (!told || !maker) throw new Error("no refused page");
  await expect(told.getByText(`${maker.email} refunded USD 1.00 of this period at`)).toBeVisible();
  const sameReport = await service.service(`/api/subscriptions/reporting/periods/${same.periodId}`);
  expect(sameReport.refunds.refund_count).toBe(same.refundCount + 1);
  expect(sameReport.refunds.refunded_to_date_usd).toBe("1.00");

  // Two different refunds of one period at once: one lands, the other is refused and nothing of it is sent.
  await Promise.all(
    pages.map(({ page, target }, i) => reviewRefund(page, target.url, raced.periodId, i === 0 ? "1.00" : "2.00")),
  );
  await Promise.all(
    pages.map(({ page }, i) => page.getByRole("button", { name: `Refund USD ${i === 0 ? "1.00" : "2.00"}` }).click()),
  );
  const outcomes = await Promise.all(pages.map(({ page }) => refundOutcome(page)));
  expect([...outcomes].sort()).toEqual(["refunded", "refused"]);
  const racedReport = await service.service(`/api/subscriptions/reporting/periods/${raced.periodId}`);
  expect(racedReport.refunds.refund_count).toBe(raced.refundCount + 1);
  expect(racedReport.refunds.refunded_to_date_usd).toBe(outcomes[0] === "refunded" ? "1.00" : "2.00");
  // The refused page follows the other refund to its end without a reload: no pending notice is left on it.
  const refused = pages[outcomes.indexOf("refused")]?.page;
  if (!refused) throw new Error("no refused page");
  await expect(refused.getByText("A refund on this period is pending")).toBeHidden({ timeout: 45_000 * SLACK });
  await expect(refused.getByRole("heading", { name: "Refund this period" })).toBeVisible();

  const counts = await rateLimitCounts(emulator.url);
  expect(counts.limited * 100).toBeLessThanOrEqual(counts.calls);
  for (const { page } of pages) await page.context().close();
});

test("[finance] SIGTERM to a web server during an export: the file arrives whole or visibly cut", async ({ page }) => {
  test.setTimeout(120_000 * SLACK);
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
  // One connection, closed after the export: the server's stop then waits for this response only, not for the
  // keep-alive time of connections (the browser's, or this one once idle).
  await page.context().close();
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${a.url}/api/exports/lines?snapshot=${snapshot.id}`, { headers: { cookie }, agent: false }, resolve).on(
      "error",
      reject,
    ),
  );
  expect(response.statusCode).toBe(200);
  const reader = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  const first = await reader.next();
  if (!first.done) chunks.push(first.value);
  const stopped = stop(a.proc);
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.next();
      if (done) break;
      chunks.push(value);
    }
  } catch {
    cut = true;
  }
  if (!response.complete) cut = true;
  await stopped;
  if (!cut) {
    // Whole: the header and every line, ending with a complete record.
    const text = Buffer.concat(chunks).toString("utf8");
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.trimEnd().split("\r\n")).toHaveLength(snapshot.line_count + 1);
  }
});

test("each scheduled job ran once in every period, with two workers scheduling", async () => {
  const names = JOBS.flatMap((job) => (job.schedule ? [job.definition.name] : []));
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) {
    // At least three periods, each finished (else it fails naming the unfinished).
    const runs = await settledScheduledRuns(db, name, SCHEDULE_SECONDS * 1000, 3);
    const starts = runs.map((r) => r.period_start.getTime());
    // No period skipped from the first on, none run twice: one job each, started once, finished.
    expect(
      starts.slice(1).filter((start, i) => start !== (starts[i] as number) + SCHEDULE_SECONDS * 1000),
      name,
    ).toEqual([]);
    expect(
      runs.filter((r) => r.job_id === null || r.runs !== 1 || r.finished_at === null),
      name,
    ).toEqual([]);
    expect(new Set(runs.map((r) => r.job_id)).size, name).toBe(runs.length);
  }
});
