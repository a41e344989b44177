// Benchmark at a studio's scale: the emulator's scale scenario (emulator/scenario/scale.ts, RECIPIENTS:RENEWALS in
// one month), its month snapshotted under the documented limits scaled by K against the floor the aggregate limit
// puts on the calls it needs, the storing cost against a bare fetch of the same pages (limits off), and the webhook
// burst (bench/webhooks-burst.ts); then, on the month snapshotted, bench/scale-parts.ts: preparing its batch against
// COPY, the window page and recipient table over HTTP on `next start` of the build (run `npm run build` first)
// against the smallest signed-in page, and the lines export against COPY. The snapshot and the pages say where their
// time went: the CPU each process spent (bench/process-cpu.ts) and the least time that allows on this machine's cores.
// The full size, 100000:1000000, is a flag; the default is a tenth of it.
// `--parts snapshot` runs the snapshot part alone; `--parts storing` its storing figure alone (no paced pass);
// `--parts pages` takes the snapshot without limits only, then prepares the batch and measures the pages.
//   npm run bench -- scale [--size 10000:100000] [--k 20] [--deliveries 10000] [--per-session 20]
//     [--parts snapshot|storing|pages] [--runs N (storing: N measures, each on a database of its own)]
//     [--lookahead PAGES]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { constants as perfConstants, PerformanceObserver } from "node:perf_hooks";
import { ensureDatabase } from "@/bin/runtime";
import { createDb } from "@/db";
import { findRunningCluster, freePort, startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { parseScale, SCALE_GAME_ID, SCALE_GAME_SECRET, scaleScenario } from "@/emulator/scenario/scale";
import { saveGame } from "@/lib/games/games";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { monthWindow } from "@/lib/time";
import { median } from "./median";
import { type Accounted, cpuSince, readCpu } from "./process-cpu";
import { exportVsCopy, pagesOverHttp, prepareVsCopy } from "./scale-parts";
import { bareFetch, pagesOf, rateFloorMs, startEmulatorProcess } from "./snapshot";

/** "Reporting rates: aggregate 60 per minute per game" */
const AGGREGATE_LIMIT = 60;
const MONTH = "2026-10";

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
}

/** Writes the scenario to `file` and lets it go: at the full size, a million renewals this process need not hold. */
async function writeScenario(size: { recipients: number; renewals: number }, file: string): Promise<number> {
  const began = performance.now();
  await writeFile(file, JSON.stringify(scaleScenario({ ...size, month: MONTH })));
  return performance.now() - began;
}

/** The live heap in MB, collected first; null unless the process runs with --expose-gc (the bench script does). */
function liveHeapMb(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  return Math.round(process.memoryUsage().heapUsed / 1e6);
}

/**
 * Sums this process's garbage-collection pauses from now until `stop` (in ms, by kind: `young` the scavenges, `old`
 * the mark-compacts and the rest). Entries are delivered after the fact: `stop` waits a turn for the last ones.
 */
function gcPauses(): { stop: () => Promise<{ young: number; old: number }> } {
  const sums = { young: 0, old: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | null)?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) sums.young += entry.duration;
      else sums.old += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    async stop() {
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      return { young: Math.round(sums.young), old: Math.round(sums.old) };
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const size = parseScale(option(args, "size", "10000:100000"));
  if (!size) throw new Error("--size must be RECIPIENTS:RENEWALS");
  const k = Number(option(args, "k", "20"));
  const parts = option(args, "parts", "all");
  if (!["all", "snapshot", "storing", "pages"].includes(parts))
    throw new Error("--parts must be snapshot, storing or pages");
  const storingOnly = parts === "storing";
  const snapshotOnly = parts === "snapshot" || storingOnly;
  const pagesOnly = parts === "pages";
  // Pages a pull asks for ahead of the one it stores (the product's default unless given).
  const lookahead = args.includes("--lookahead") ? Number(option(args, "lookahead", "")) : undefined;
  // `--parts storing` only: how many times to measure it, each time on a database of its own.
  const runCount = Number(option(args, "runs", "1"));
  if (!Number.isInteger(runCount) || runCount < 1) throw new Error("--runs must be a whole number of at least 1");
  if (runCount > 1 && !storingOnly) throw new Error("--runs is for --parts storing");
  if (!Number.isInteger(k) || k < 1) throw new Error("--k must be a whole number of at least 1");
  const dir = await mkdtemp(path.join(os.tmpdir(), "scale-bench-"));
  await chmod(dir, 0o755);
  const clusterDir = path.join(dir, "postgres");
  const cluster = await startCluster({
    clusterDir,
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  const scenarioFile = path.join(dir, "scale.json");
  const generateMs = await writeScenario(size, scenarioFile);
  // Both services in processes of their own, as in production: the snapshot's parsing and storing never share this
  // process's thread with the service's work.
  const open = await startEmulatorProcess(scenarioFile);
  const paced = await startEmulatorProcess(scenarioFile, `scaled:${k}`);
  await ensureDatabase(cluster.url, "scale_bench");
  const url = withDatabase(cluster.url, "scale_bench");
  const port = await freePort();
  Object.assign(process.env, {
    DATABASE_URL: url,
    PAYOUT_DESK_URL: `http://localhost:${port}`,
    PAYOUT_DESK_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: "warn",
  });
  const db = createDb(url, { max: 8 });
  try {
    await migrateToLatest(db);
    const window = monthWindow(MONTH);
    const point = async (on: typeof db, baseUrl: string, pacing: string) => {
      await saveGame(
        on,
        {
          id: SCALE_GAME_ID,
          name: "Scale",
          environment: "sandbox",
          baseUrl,
          secret: SCALE_GAME_SECRET,
          webhookSecrets: [],
        },
        { replace: true, as: { actor: null, via: "cli" } },
      );
      await on
        .updateTable("game")
        .set({ settings: JSON.stringify({ pacing }) })
        .where("id", "=", SCALE_GAME_ID)
        .execute();
    };
    const request = { gameId: SCALE_GAME_ID, requestedBy: null, via: "bench", window };

    // Storing cost: the snapshot (limits off) against the same pages through a bare client, and the CPU each
    // process spent on either: this one (the desk's pull, or the bare client), PostgreSQL, the service.
    const accounted: Record<string, Accounted> = {
      desk: { pid: process.pid, scope: "process" },
      postgres: { pid: (await findRunningCluster(clusterDir))?.pid, scope: "tree" },
      service: { pid: open.pid, scope: "process" },
    };
    const measureStoring = async (on: typeof db) => {
      await point(on, open.url, "off");
      let cpu = readCpu(accounted);
      let gc = gcPauses();
      const began = performance.now();
      const stored = await takeSnapshotNow(on, request, { lookahead });
      const snapshotMs = performance.now() - began;
      const snapshotCpu = cpuSince(cpu, accounted);
      const snapshotGc = await gc.stop();
      const pages = await pagesOf(on, stored.snapshotId);
      cpu = readCpu(accounted);
      gc = gcPauses();
      const perCall = await bareFetch(open.url, pages, { id: SCALE_GAME_ID, secret: SCALE_GAME_SECRET });
      const bareCpu = cpuSince(cpu, accounted);
      const bareGc = await gc.stop();
      const bareMs = perCall.reduce((a, b) => a + b, 0);
      const figures = {
        snapshotMs: Math.round(snapshotMs),
        bareFetchMs: Math.round(bareMs),
        storingVsBareFetch: Number((snapshotMs / bareMs).toFixed(2)),
        storingTarget: "<= 1.3",
        snapshotCpuMs: snapshotCpu?.byProcessMs ?? null,
        bareFetchCpuMs: bareCpu?.byProcessMs ?? null,
        // Time this process's JavaScript stood still for garbage collection (the young generation's and the old's).
        snapshotGcPauseMs: snapshotGc,
        bareFetchGcPauseMs: bareGc,
        // The least wall time the snapshot's CPU allows on this machine's cores, against the bare fetch: the best
        // the storing figure can be here however well the pull overlaps its work.
        snapshotCpuBoundMs: snapshotCpu?.boundMs ?? null,
        snapshotCpuBoundVsBareFetch: snapshotCpu ? Number((snapshotCpu.boundMs / bareMs).toFixed(2)) : null,
      };
      return { stored, perCall, figures };
    };

    const measured = await measureStoring(db);
    const { stored, perCall, figures: storing } = measured;
    if (storingOnly) {
      // Further runs, each on a database of its own (a first version again), for the spread of the figure.
      const runs = [storing];
      for (let run = 2; run <= runCount; run += 1) {
        const name = `scale_bench_${run}`;
        await ensureDatabase(cluster.url, name);
        const again = createDb(withDatabase(cluster.url, name), { max: 8 });
        try {
          await migrateToLatest(again);
          runs.push((await measureStoring(again)).figures);
        } finally {
          await again.destroy();
        }
      }
      const ratios = runs.map((r) => r.storingVsBareFetch);
      const figures = {
        part: "storing",
        size,
        pages: stored.pages,
        lines: stored.lines,
        ...storing,
        ...(runCount > 1
          ? { runs, storingVsBareFetchByRun: ratios, medianStoringVsBareFetch: Number(median(ratios).toFixed(2)) }
          : {}),
      };
      process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
      return;
    }

    // Paced: the documented limits scaled by K; the floor is what the aggregate limit allows for these calls.
    // With --parts pages a second snapshot without limits stands in for it (the pages show the latest version).
    await point(db, pagesOnly ? open.url : paced.url, pagesOnly ? "off" : `scaled:${k}`);
    // Where the paced pass's time goes: the calls themselves (sending to parsed answer) and the pacer's waits; the
    // rest is the pacer's own round trips, parsing and storing not overlapped with a call.
    const spent = { callMs: 0, pacerWaitMs: 0, readMs: 0 };
    // What this pull holds when it publishes (a second version: it compares each row with the first's), measured on
    // this pass, whose time the rate limit sets, so that the collection costs the storing figure nothing.
    const heap = { beforeMb: liveHeapMb(), atPublishingMb: null as number | null };
    const began = performance.now();
    const pulled = await takeSnapshotNow(db, request, {
      lookahead,
      onProgress: (progress) => {
        if (progress.phase === "checking completeness" && spent.readMs === 0) spent.readMs = performance.now() - began;
        if (progress.phase === "publishing" && heap.atPublishingMb === null) heap.atPublishingMb = liveHeapMb();
      },
      clientOverrides: {
        log: (entry) => {
          spent.callMs += entry.durationMs;
          spent.pacerWaitMs += entry.pacedMs;
        },
      },
    });
    const pacedMs = performance.now() - began;
    const floorMs = rateFloorMs(perCall, AGGREGATE_LIMIT, 60_000 / k);
    process.stdout.write(
      `${JSON.stringify(
        {
          part: "snapshot of the month",
          size,
          generateScenarioMs: Math.round(generateMs),
          renewals: stored.totals.renewalsSettled,
          recipients: stored.recipients,
          lines: stored.lines,
          pages: stored.pages,
          ...storing,
          secondPullLiveHeapMb: heap,
          ...(pagesOnly
            ? {}
            : {
                pacedK: k,
                pacedCalls: pulled.requests,
                rateLimited: pulled.rateLimited,
                pacedMs: Math.round(pacedMs),
                pacedReadMs: Math.round(spent.readMs),
                pacedCallsSumMs: Math.round(spent.callMs),
                pacedPacerWaitSumMs: Math.round(spent.pacerWaitMs),
                aggregateFloorMs: Math.round(floorMs),
                pacedVsFloor: Number((pacedMs / floorMs).toFixed(3)),
                pacedTarget: "<= 1.1",
              }),
        },
        null,
        2,
      )}\n`,
    );
    if (snapshotOnly) return;
    // A part that fails is reported and the next one still runs.
    const part = (name: string, work: () => Promise<void>) =>
      work().catch((error: unknown) => {
        process.stdout.write(`${JSON.stringify({ part: name, failed: String(error) })}\n`);
      });
    await part("preparing the batch", () => prepareVsCopy(db, url, SCALE_GAME_ID, window));
    const perSession = Number(option(args, "per-session", "20"));
    await part("pages over HTTP", () =>
      pagesOverHttp(db, {
        gameId: SCALE_GAME_ID,
        window,
        recipients: stored.recipients,
        perSession,
        port,
        postgresPid: accounted.postgres?.pid,
      }),
    );
    if (pagesOnly) return;
    await part("lines CSV export", () =>
      exportVsCopy(db, url, { gameId: SCALE_GAME_ID, snapshotId: pulled.snapshotId, lines: pulled.lines }),
    );
  } finally {
    await open.close();
    await paced.close();
    await db.destroy();
    const { stopBoss } = await import("@/lib/jobs/queue");
    await stopBoss();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
  if (snapshotOnly || pagesOnly) return;
  // In a process of its own: this one has read its environment (database, key) for the snapshot part.
  process.stdout.write('{"part": "webhook burst"}\n');
  const burst = spawn(
    process.execPath,
    [
      "--import",
      "./bin/register.mjs",
      "bench/run.ts",
      "webhooks-burst",
      "--deliveries",
      option(args, "deliveries", "10000"),
    ],
    { cwd: path.resolve(import.meta.dirname, ".."), stdio: "inherit" },
  );
  const code = await new Promise<number | null>((resolve) => burst.once("exit", resolve));
  if (code !== 0) throw new Error(`the webhook burst exited with ${code}`);
}
