// Benchmark of window snapshots (issue 4): a window of 20,000 renewals, 2,000 recipients and 1,000 reversals.
//  1. Limits off: the snapshot's wall time against a bare client fetching the same pages without storing them.
//     Target: storing costs at most 1.5 times the bare fetch.
//  2. Documented limits scaled by K (emulator and pacer alike): the quarter and its three months pulled one after the
//     other, as at month end, so that the aggregate limit binds. Wall time against the floor the limit imposes on
//     those calls, and the 429s received. Targets: at most 1.15 times the floor, at most one 429 per 100 calls.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { startEmulator } from "@/emulator/server";
import { saveGame } from "@/lib/games/games";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { createServiceClient } from "@/lib/service/client";
import { monthWindow, parseWindow, type TimeWindow, windowToQuery } from "@/lib/time";
import { buildScenario, GAME_ID, GAME_SECRET } from "../tests/snapshots/scenario";
import { median } from "./median";

const K = 4;
const RUNS = 3;
const QUARTER = parseWindow("2026-01-01", "2026-04-01");
const MONTHS = ["2026-01", "2026-02", "2026-03"].map(monthWindow);
/** "Reporting rates: aggregate 60 per minute per game" */
const AGGREGATE_LIMIT = 60;

/**
 * The service in its own process, as in production: the snapshot's own work (parsing, storing) then competes with
 * the service for nothing but the machine's cores, exactly as the bare fetch does.
 */
export async function startEmulatorProcess(
  scenarioFile: string,
  rateLimits = "off",
): Promise<{ url: string; pid: number | undefined; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "./bin/register.mjs",
      "emulator/main.ts",
      "--port",
      "0",
      "--scenario",
      scenarioFile,
      "--rate-limits",
      rateLimits,
    ],
    { cwd: path.resolve(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /emulator listening on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`emulator exited (${code}): ${out}`)));
  });
  return {
    url,
    pid: child.pid,
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function pointGame(db: Db, url: string, pacing: string): Promise<void> {
  await saveGame(
    db,
    { id: GAME_ID, name: "Bench", environment: "sandbox", baseUrl: url, secret: GAME_SECRET, webhookSecrets: [] },
    { replace: true, as: { actor: null, via: "cli" } },
  );
  await db
    .updateTable("game")
    .set({ settings: JSON.stringify({ pacing }) })
    .where("id", "=", GAME_ID)
    .execute();
}

type PageRequest = { window: TimeWindow; recipientPlayerId: number | null; offset: number; limit: number };

export async function pagesOf(db: Db, snapshotId: string): Promise<PageRequest[]> {
  const rows = await db
    .selectFrom("snapshot_page")
    .select(["window_start", "window_end", "recipient_player_id", "page_offset", "page_limit"])
    .where("snapshot_id", "=", snapshotId)
    .orderBy("seq")
    .execute();
  return rows.map((r) => ({
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
    offset: r.page_offset,
    limit: r.page_limit,
  }));
}

/** The same pages through a plain client: fetched and parsed, nothing stored. Returns each call's duration. */
export async function bareFetch(
  url: string,
  pages: PageRequest[],
  game = { id: GAME_ID, secret: GAME_SECRET },
): Promise<number[]> {
  const client = createServiceClient({
    baseUrl: url,
    environment: "sandbox",
    gameSecret: game.secret,
    gameId: `${game.id}-bare`,
    pacing: "off",
  });
  const durations: number[] = [];
  for (const page of pages) {
    const started = performance.now();
    await client.getAttributionReport({
      ...windowToQuery(page.window),
      recipientPlayerId: page.recipientPlayerId ?? undefined,
      limit: page.limit,
      offset: page.offset,
    });
    durations.push(performance.now() - started);
  }
  return durations;
}

/**
 * The least time `durations.length` sequential calls can take when at most `limit` may start in any `windowMs`:
 * call i starts when call i-1 has answered and no earlier than `windowMs` after call i-limit started.
 */
export function rateFloorMs(durations: number[], limit: number, windowMs: number): number {
  const starts: number[] = [];
  let end = 0;
  durations.forEach((duration, i) => {
    const previousEnd = end;
    const gate = i >= limit ? (starts[i - limit] as number) + windowMs : 0;
    const start = Math.max(previousEnd, gate);
    starts.push(start);
    end = start + duration;
  });
  return end;
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-bench-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  const admin = createDb(cluster.url, { max: 1 });
  const { sql } = await import("kysely");
  await sql`create database bench`.execute(admin);
  await admin.destroy();
  const url = withDatabase(cluster.url, "bench");
  // The pull reads its database and key the way the app does (lib/env.ts).
  process.env.DATABASE_URL = url;
  process.env.PAYOUT_DESK_KEY ??= randomBytes(32).toString("base64");
  process.env.LOG_LEVEL ??= "warn";
  const db = createDb(url, { max: 8 });
  await migrateToLatest(db);

  const scenario = buildScenario({
    recipients: 2_000,
    renewalsPerRecipient: 10,
    reversals: 1_000,
    refundDelayMs: 86_400_000,
    start: "2026-01-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
  });
  const scenarioFile = path.join(dir, "scenario.json");
  await writeFile(scenarioFile, JSON.stringify(scenario));
  const open = await startEmulatorProcess(scenarioFile);
  const scaled = await startEmulator({ port: 0, scenario, rateLimits: `scaled:${K}` });
  const request = { gameId: GAME_ID, requestedBy: null, via: "bench" };
  try {
    // --- 1. limits off -------------------------------------------------------------------------------------------
    await pointGame(db, open.url, "off");
    const snapshotMs: number[] = [];
    const bareMs: number[] = [];
    let perCall: number[] = [];
    let summary = await takeSnapshotNow(db, { ...request, window: QUARTER }); // warm-up (JIT, caches), not counted
    const pages = await pagesOf(db, summary.snapshotId);
    await bareFetch(open.url, pages);
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      summary = await takeSnapshotNow(db, { ...request, window: QUARTER });
      snapshotMs.push(performance.now() - started);
      const calls = await bareFetch(open.url, pages);
      bareMs.push(calls.reduce((a, b) => a + b, 0));
      perCall = calls;
    }
    const snap = median(snapshotMs);
    const bare = median(bareMs);
    console.log(
      JSON.stringify(
        {
          part: "limits off",
          window: windowToQuery(QUARTER),
          renewals: summary.totals.renewalsSettled,
          recipients: summary.recipients,
          lines: summary.lines,
          reversals: summary.reversals,
          refundEvents: summary.refundEvents,
          pages: summary.pages,
          runs: RUNS,
          snapshotMs: Math.round(snap),
          bareFetchMs: Math.round(bare),
          ratio: Number((snap / bare).toFixed(2)),
          // Each snapshot against the bare fetch right after it: on a shared machine the load moves between runs.
          runRatios: snapshotMs.map((ms, i) => Number((ms / (bareMs[i] as number)).toFixed(2))),
          target: "<= 1.5",
          drift: summary.drift.status,
        },
        null,
        2,
      ),
    );

    // --- 2. documented limits scaled by K ------------------------------------------------------------------------
    await pointGame(db, scaled.url, `scaled:${K}`);
    const windows = [QUARTER, ...MONTHS];
    const started = performance.now();
    let calls = 0;
    let rateLimited = 0;
    const durations: number[] = [];
    for (const window of windows) {
      const pulled = await takeSnapshotNow(db, { ...request, window });
      calls += pulled.requests;
      rateLimited += pulled.rateLimited;
      // The floor uses the unpaced service time of these very pages.
      const replay = await pagesOf(db, pulled.snapshotId);
      durations.push(...replay.map((_, i) => perCall[i % perCall.length] as number));
    }
    const wall = performance.now() - started;
    const floor = rateFloorMs(durations, AGGREGATE_LIMIT, 60_000 / K);
    console.log(
      JSON.stringify(
        {
          part: `documented limits scaled:${K}`,
          windows: windows.map(windowToQuery),
          calls,
          rateLimited,
          per100Calls: Number(((rateLimited / calls) * 100).toFixed(2)),
          wallMs: Math.round(wall),
          floorMs: Math.round(floor),
          ratio: Number((wall / floor).toFixed(3)),
          target: "<= 1.15, <= 1 429 per 100 calls",
        },
        null,
        2,
      ),
    );
  } finally {
    await open.close();
    await scaled.close();
    await db.destroy();
    const { stopBoss } = await import("@/lib/jobs/queue");
    await stopBoss();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
