// The parts of `npm run bench -- scale` that work on the scaled month once it is snapshotted: preparing its batch
// against COPY of the same rows, the window page and the recipient table over HTTP on the production server, and
// the lines CSV export against COPY of the same cells. Each prints one JSON object with its ratio to a floor measured
// in the same run.
import { sql } from "kysely";
import pg from "pg";
import type { Db } from "@/db";
import { recordDisputeOpened } from "@/db/queries/disputes";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { windowKey } from "@/lib/payouts/window-key";
import type { TimeWindow } from "@/lib/time";
import { copyIn, copyOut, copyStatement, download, startServer } from "./export";
import { median } from "./median";
import { loadApart, signedInSessions, startAppServer } from "./http-load";
import { type Accounted, type CpuReading, cpuSince, readCpu } from "./process-cpu";
import type { LoadResult } from "./load-client";

const SESSIONS = 20;
/** Chargebacks open on the studio's card orders while finance reviews the month (none on its wallet renewals). */
const OPEN_DISPUTES = 20;
const TARGET_P95_MS = 300;
const BENCH_ADMIN = { id: "bench-admin", email: "bench-admin@payout-desk.test" };

function print(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const ratio = (a: number, b: number, digits = 2) => Number((a / b).toFixed(digits));

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The batch of the month prepared (statements and their first events written) against the floor of writing the
 * same rows: COPY FROM of their CSV into tables shaped like theirs (indexes included), in the same database.
 */
export async function prepareVsCopy(db: Db, url: string, gameId: string, window: TimeWindow): Promise<void> {
  // Every recipient of the scenario earns 9.00 in the month: under the default minimum of 10.00 all would carry
  // forward and the batch would pay nobody. A studio paying them has a lower minimum.
  await savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "1.00" }, { actor: BENCH_ADMIN, via: "cli" });
  const began = performance.now();
  const prepared = await preparePayoutBatch(db, { gameId, window }, { actor: null, via: "cli" });
  const prepareMs = performance.now() - began;
  const copy = await withClient(url, async (client) => {
    const tables = ["payout_statement", "payout_statement_event"];
    const csv: Buffer[][] = [];
    const columns: string[] = [];
    for (const table of tables) {
      const chunks: Buffer[] = [];
      const stored = await client.query<{ name: string }>(
        "select column_name as name from information_schema.columns where table_name = $1 and is_generated = 'NEVER'" +
          " order by ordinal_position",
        [table],
      );
      columns.push(stored.rows.map((c) => `"${c.name}"`).join(", "));
      const select = `select ${columns.at(-1)} from ${table} where batch_id = '${prepared.batchId}'`;
      await copyOut(client, `copy (${select}) to stdout`, chunks);
      csv.push(chunks);
      await client.query(`create temp table bench_${table} (like ${table} including all)`);
    }
    const t0 = performance.now();
    for (const [i, table] of tables.entries())
      await copyIn(client, `copy bench_${table} (${columns[i]}) from stdin`, csv[i] ?? []);
    const ms = performance.now() - t0;
    const rows = await client.query<{ n: string }>(
      "select (select count(*) from bench_payout_statement) + (select count(*) from bench_payout_statement_event) n",
    );
    return { ms, rows: Number(rows.rows[0]?.n) };
  });
  print({
    part: "preparing the batch",
    statements: prepared.statements,
    rowsWritten: copy.rows,
    prepareMs: Math.round(prepareMs),
    copyFromMs: Math.round(copy.ms),
    prepareVsCopy: ratio(prepareMs, copy.ms),
  });
}

/**
 * `next start` of the build on this database; SESSIONS signed-in sessions ask at once for the window page, a
 * recipient search and a deep page of its table, and, as the floor, the app's smallest signed-in page. The game has
 * OPEN_DISPUTES open disputes, which every view of the window looks up among the snapshot's lines.
 */
export async function pagesOverHttp(
  db: Db,
  options: {
    gameId: string;
    window: TimeWindow;
    recipients: number;
    perSession: number;
    port: number;
    postgresPid: number | undefined;
  },
): Promise<void> {
  for (let i = 1; i <= OPEN_DISPUTES; i++) {
    const id = String(i).padStart(4, "0");
    await recordDisputeOpened(db, {
      gameId: options.gameId,
      disputeId: `dp_bench_${id}`,
      orderId: `ord_card_${id}`,
      transactionId: null,
      reason: "fraudulent",
      usdAmount: "9.00",
      openedAt: new Date(options.window.startMs),
      eventId: `evt_bench_dispute_${id}`,
    });
  }
  const server = await startAppServer(options.port, { PORT: String(options.port) });
  try {
    const cookies = await signedInSessions(db, SESSIONS);
    const page = `/payouts/${encodeURIComponent(windowKey(options.window))}`;
    const deep = Math.max(1, Math.floor((options.recipients * 0.9) / 50));
    const paths = {
      floor: "/forbidden",
      window: page,
      search: `${page}?q=${encodeURIComponent("Creator 123")}`,
      deepPage: `${page}?sort=recipient&dir=asc&page=${deep}`,
    };
    const results: Record<string, LoadResult> = {};
    // CPU per request (the sessions' first requests, untimed, included) of the server, of its main thread (where
    // its JavaScript runs, one request at a time) and of PostgreSQL; with S sessions asking without pause, a
    // request's mean wait is at least S times what it costs the busier of the main thread and the cores as a whole.
    const accounted: Record<string, Accounted> = {
      server: { pid: server.pid, scope: "tree" },
      serverMainThread: { pid: server.pid, scope: "main thread" },
      postgres: { pid: options.postgresPid, scope: "tree" },
    };
    const cpuPerRequestMs: Record<string, CpuReading | null> = {};
    const leastMeanMs: Record<string, number | null> = {};
    // Every path asked twice by every session before any is timed: the server's first views of each page (its code
    // not yet optimised) fall on none of the timed ones, the floor's included, which is timed first.
    for (const path of Object.values(paths)) await loadApart(server.url, cookies, path, 1);
    // Each path timed once autovacuum has left the tables the month wrote (it starts on them within a minute of the
    // writes): the pages as they are most of the time, and PostgreSQL's CPU a request without the vacuum's.
    const autovacuumWaitMs: Record<string, number> = {};
    // The paths timed with a worker still running: the wait reached its cap.
    const autovacuumStillRunning: string[] = [];
    for (const [name, path] of Object.entries(paths)) {
      const waited = await autovacuumDone(db);
      autovacuumWaitMs[name] = waited.ms;
      if (!waited.done) autovacuumStillRunning.push(name);
      const before = readCpu(accounted);
      const result = await loadApart(server.url, cookies, path, options.perSession);
      const spent = cpuSince(before, accounted, ["server", "postgres"]);
      results[name] = result;
      const requests = result.requests + cookies.length;
      cpuPerRequestMs[name] = spent ? perRequest(spent.byProcessMs, requests) : null;
      leastMeanMs[name] = spent
        ? Math.round((SESSIONS * Math.max(spent.boundMs, spent.byProcessMs.serverMainThread ?? 0)) / requests)
        : null;
    }
    const floor = results.floor?.p95Ms ?? 1;
    const vs = (name: string) => ratio(results[name]?.p95Ms ?? 0, Math.max(1, floor));
    print({
      part: "pages over HTTP (next start, signed in)",
      sessions: SESSIONS,
      openDisputes: OPEN_DISPUTES,
      paths,
      ...results,
      cpuPerRequestMs,
      leastMeanMs,
      autovacuumWaitMs,
      autovacuumStillRunning,
      windowP95VsFloor: vs("window"),
      searchP95VsFloor: vs("search"),
      deepPageP95VsFloor: vs("deepPage"),
      windowTargetP95Ms: `< ${TARGET_P95_MS}`,
      windowMeetsTarget: (results.window?.p95Ms ?? Infinity) < TARGET_P95_MS,
    });
  } finally {
    await server.close();
  }
}

/**
 * Waits, up to two minutes, until no autovacuum worker runs on this database: how long it waited, in ms, and whether
 * the workers were gone (false: the cap was reached with one still running).
 */
async function autovacuumDone(db: Db): Promise<{ ms: number; done: boolean }> {
  const began = performance.now();
  for (;;) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where backend_type = 'autovacuum worker' and datname = current_database()`.execute(db);
    const ms = Math.round(performance.now() - began);
    if ((rows[0]?.n ?? 0) === 0) return { ms, done: true };
    if (ms > 120_000) return { ms, done: false };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function perRequest(spentMs: CpuReading, requests: number): CpuReading {
  return Object.fromEntries(Object.entries(spentMs).map(([name, ms]) => [name, Number((ms / requests).toFixed(1))]));
}

/** The lines CSV export of the snapshot (bench/export.ts's server) against COPY of the same cells, 3 runs each. */
export async function exportVsCopy(
  db: Db,
  url: string,
  params: { gameId: string; snapshotId: string; lines: number },
): Promise<void> {
  const { gameId, snapshotId } = params;
  const server = await startServer(url);
  try {
    const runs = await withClient(url, async (client) => {
      const text = copyStatement(db, client, snapshotId, gameId);
      const http: number[] = [];
      const copy: number[] = [];
      for (let i = 0; i <= 3; i++) {
        let t0 = performance.now();
        const result = await download(server.port, snapshotId, gameId);
        if (result.status !== 200) throw new Error(`the export answered ${result.status}`);
        const httpMs = performance.now() - t0;
        t0 = performance.now();
        await copyOut(client, text);
        if (i === 0) continue;
        copy.push(performance.now() - t0);
        http.push(httpMs);
      }
      return { http: median(http), copy: median(copy) };
    });
    print({
      part: "lines CSV export",
      lines: params.lines,
      exportMs: Math.round(runs.http),
      copyMs: Math.round(runs.copy),
      exportThroughputVsCopy: ratio(runs.copy, runs.http),
      target: ">= 0.8",
    });
  } finally {
    if (server.child.exitCode === null) {
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await exited;
    }
  }
}
