import { KEEP_ALIVE_MS } from "../bin/server-options";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ensureBuild } from "../bin/build-state";
import { ensureDatabase } from "../bin/runtime";
import { freePort, startCluster, withDatabase } from "../db/embedded";
import { createDb } from "../db/index";
import { migrateToLatest } from "../db/migrate";
import { CRAWL_MONTH, E2E_PASSWORD, E2E_USERS, userFor } from "./fixtures/users";
import { registerDemoGame, seedDemoIssuer } from "../bin/demo";
import { DEFAULT_AUTOMATION } from "../core/game-automation";
import { updateGameAutomation } from "../db/queries/webhooks";
import { DEMO_GAME_ID, DEMO_WEBHOOK_SECRET } from "../emulator/scenario/demo";
import { startEmulator } from "../emulator/server";
import { SLACK } from "./fixtures/slack";

// The test runner resolves modules with the "react-server" condition (so that server-only modules load here);
// the app's own server must not inherit that.
const { NODE_OPTIONS: _runnerOptions, ...CHILD_ENV } = process.env;

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000 * SLACK;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

/**
 * The demo window the crawl walks through: a snapshot and a prepared payout batch, made with the app's own functions
 * (as the CLI and the Payouts page do). Another month than the one the payout spec takes through its review.
 */
async function prepareCrawlWindow(
  db: ReturnType<typeof createDb>,
  finance: { id: string; email: string } | undefined,
): Promise<void> {
  if (!finance) throw new Error("no finance user for the crawl window");
  const { takeSnapshotNow } = await import("../lib/snapshots/pull");
  const { preparePayoutBatch } = await import("../lib/payouts/batches");
  const { monthWindow } = await import("../lib/time");
  const window = monthWindow(CRAWL_MONTH);
  const actor = { id: finance.id, email: finance.email };
  await takeSnapshotNow(db, { gameId: DEMO_GAME_ID, window, requestedBy: actor, via: "cli" });
  await preparePayoutBatch(db, { gameId: DEMO_GAME_ID, window }, { actor, via: "cli" });
}

type Stop = () => Promise<void>;

/**
 * Starts everything the end-to-end tests need and tells the tests where it is through environment variables:
 * E2E_BASE_URL, E2E_DATABASE_URL, E2E_SERVER_LOG. What it has started is stopped in reverse order by the teardown it
 * returns, or at once when a later step fails (a set-up that failed half-way leaves no database or service running).
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const stops: Stop[] = [];
  const stopAll = async () => {
    const failures: unknown[] = [];
    for (const stop of stops.splice(0).reverse()) await stop().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw new AggregateError(failures, "the end-to-end set-up did not stop cleanly");
  };
  try {
    await startAll(stops);
  } catch (error) {
    await stopAll().catch(() => {});
    throw error;
  }
  return stopAll;
}

async function startAll(stops: Stop[]): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-e2e-"));
  stops.push(() => rm(dir, { recursive: true, force: true }));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  stops.push(() => cluster.stop());
  await ensureDatabase(cluster.url, "payout_desk_e2e");
  const databaseUrl = withDatabase(cluster.url, "payout_desk_e2e");
  const key = randomBytes(32).toString("base64");
  process.env.DATABASE_URL = databaseUrl;
  process.env.PAYOUT_DESK_KEY = key;
  process.env.LOG_LEVEL = "silent";

  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  // The emulator with the demo data, limits off for speed; webhooks come to this app.
  const emulator = await startEmulator({
    demo: { seed: 1 },
    rateLimits: "off",
    webhookUrl: `${baseUrl}/api/webhooks/service/${DEMO_GAME_ID}`,
    webhookSecret: DEMO_WEBHOOK_SECRET,
  });
  stops.push(() => emulator.close());

  const db = createDb(databaseUrl, { max: 2 });
  const users = [];
  try {
    await migrateToLatest(db);
    const { createUser } = await import("../lib/auth/users");
    for (const user of E2E_USERS)
      users.push(await createUser(db, { ...user, password: E2E_PASSWORD }, { actor: null, via: "cli" }));
    await registerDemoGame(db, emulator.url, { pacing: "off" });
    // No pulls by the clock (the hour's scheduled pulls of this month, or the last one early in a month): every
    // snapshot a spec reads is one a spec asked for, whatever the day the suite runs.
    await updateGameAutomation(db, DEMO_GAME_ID, {
      ...DEFAULT_AUTOMATION,
      pullPreviousMonth: false,
      pullCurrentMonthDaily: false,
    });
    await seedDemoIssuer(db);
  } finally {
    await db.destroy();
  }
  // The pull holds one connection for its lock and works on others: a pool of its own, as the CLI's.
  const pullDb = createDb(databaseUrl, { max: 4 });
  try {
    await prepareCrawlWindow(
      pullDb,
      users.find((u) => u.email === userFor("finance").email),
    );
  } finally {
    await pullDb.destroy();
  }

  await ensureBuild(ROOT, CHILD_ENV);

  // Statement emails go to the built-in mail catcher, as under `npm start`: admins read them under Outbox.
  const { startMailCatcher } = await import("../lib/mail/catcher");
  const mailDb = createDb(databaseUrl, { max: 2 });
  stops.push(() => mailDb.destroy());
  const catcher = await startMailCatcher(mailDb);
  stops.push(() => catcher.stop());

  const logFile = path.join(dir, "server.log");
  const log = createWriteStream(logFile);
  // The server's log outlives the set-up's folder, under test-results/ (a failed test's trace shows only the browser's
  // side of a slow or failed answer): e2e-server-flows.log for `--project=flows`, e2e-server-all.log for both.
  stops.push(async () => {
    const project = process.argv.find((a) => a.startsWith("--project="))?.slice("--project=".length) ?? "all";
    await mkdir(path.join(ROOT, "test-results"), { recursive: true });
    await copyFile(logFile, path.join(ROOT, "test-results", `e2e-server-${project}.log`));
  });
  stops.push(() => new Promise((resolve) => log.end(resolve)));
  const app = spawn(process.execPath, [NEXT_BIN, "start", "-p", String(port), "--keepAliveTimeout", KEEP_ALIVE_MS], {
    cwd: ROOT,
    env: {
      ...CHILD_ENV,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      PAYOUT_DESK_KEY: key,
      PAYOUT_DESK_URL: baseUrl,
      LOG_LEVEL: "debug",
      PORT: String(port),
      SMTP_URL: catcher.url,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  stops.push(async () => {
    if (app.exitCode !== null || app.signalCode !== null) return;
    const exited = new Promise((resolve) => app.once("exit", resolve));
    app.kill("SIGTERM");
    await exited;
  });
  app.stdout?.pipe(log);
  app.stderr?.pipe(log);
  try {
    await waitFor(`${baseUrl}/api/health`, app);
  } catch (error) {
    // The log goes with the set-up's folder: what the app said is kept in the error.
    const said = await readFile(logFile, "utf8").catch(() => "");
    throw new Error(`${(error as Error).message}; its log ends:\n${said.split("\n").slice(-20).join("\n")}`);
  }

  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_DATABASE_URL = databaseUrl;
  process.env.E2E_SERVER_LOG = logFile;
  process.env.E2E_EMULATOR_URL = emulator.url;
}
