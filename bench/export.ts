// Benchmark of the CSV export: renewal lines of one snapshot (1,000,000, or `--lines 100000,1000000`), downloaded
// through the app's HTTP export and, in the same run, through PostgreSQL's own `COPY (same SELECT) TO STDOUT (FORMAT
// csv)`. Targets: HTTP throughput at least 0.8x COPY's; the export server's memory growth under 100 MB. The HTTP
// side is a separate Node process serving the export with the route's own code (lib/exports/http.ts exportResponse,
// which app/api/exports/[kind]/route.ts returns once the session and query are checked), so its memory is measured
// alone: resident set size sampled every 25 ms, and the kernel's high-water mark (VmHWM).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { sql } from "kysely";
import pg from "pg";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { ensureDatabase } from "@/bin/runtime";
import { exportResponse } from "@/lib/exports/http";
import { selectLineCells } from "@/lib/exports/lines";
import { saveGame } from "@/lib/games/games";
import { SNAPSHOT_COLUMNS } from "./snapshot-row";
import { exportBenchOptions, profileExport } from "./export-profile";
import { median } from "./median";

const DEFAULT_LINES = 1_000_000;
const RECIPIENTS = 20_000;
const DEFAULT_RUNS = 3;
const GAME_ID = "bench-export";
const WINDOW = { start: "2026-03-01T00:00:00Z", end: "2026-04-01T00:00:00Z" };
const ROOT = path.resolve(import.meta.dirname, "..");

// --- Data ----------------------------------------------------------------------------------------------------------

/** The bench's game, once per database. */
async function seedGame(db: Db): Promise<void> {
  await saveGame(
    db,
    {
      id: GAME_ID,
      name: "Bench export",
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: "gs_bench_export_secret",
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
}

/** One snapshot of `lines` renewal lines over RECIPIENTS recipients, written by PostgreSQL itself (generate_series). */
export async function seed(db: Db, lines = DEFAULT_LINES, version = 1): Promise<string> {
  const LINES = lines;
  const pullId = crypto.randomUUID();
  const snapshotId = crypto.randomUUID();
  await db
    .insertInto("snapshot_pull")
    .values({
      id: pullId,
      game_id: GAME_ID,
      window_start: WINDOW.start,
      window_end: WINDOW.end,
      status: "complete",
      via: "bench",
    })
    .execute();
  await sql`insert into snapshot (${SNAPSHOT_COLUMNS})
    values (${snapshotId}, ${GAME_ID}, ${WINDOW.start}, ${WINDOW.end}, ${version}, ${pullId}, ${WINDOW.end},
      ${WINDOW.end}, ${WINDOW.end}, true, 'split', 0, 0, 0, 0, 0, 0, ${LINES}, 0, 0, ${LINES}, '0', '0', '0', '0',
      '0', ${LINES}, 0, '{}', '0', '0', '0', 0, 0, 0, ${RECIPIENTS}, '{}', '{}', '[]', '[]',
      'first_version')`.execute(db);
  // Names with commas, quotes and non-Latin text, so that quoting is exercised as in real data.
  await sql`insert into snapshot_recipient (snapshot_id, recipient_player_id, service_rank, resolved, player_email,
  player_name,
      renewal_count, subscription_count, reversal_count, gross_attributed_usd, reversed_attributed_usd,
      net_attributed_usd)
    select ${snapshotId}, 100000 + r, r, true, 'creator' || r || '@bench.test',
      case r % 4 when 0 then 'Creator ' || r when 1 then 'Studio, "' || r || '"' when 2 then 'Créateur ' || r ||
      ' – 東京' else '=Name ' || r end,
      50, 5, 0, '90.00', '0.00', '90.00'
    from generate_series(1, ${RECIPIENTS}) r`.execute(db);
  await sql`insert into snapshot_line (snapshot_id, period_id, recipient_player_id, subscription_id, period_seq,
      item_id, item_name, status, period_start, period_end, paid_at, amount_usd, invo_fee_usd, partner_revenue_usd,
      partner_revenue_settled_usd, partner_revenue_reversed_usd, partner_leg_reversed, percent_at_renewal, base_usd,
      attributed_amount_usd, attribution_unavailable_reason, transaction_id, mint_order_id, funding, refund,
      reconciliation)
    select ${snapshotId}, g, 100001 + (g % ${RECIPIENTS}), 'SUB_1700000000_' || lpad((g / 12)::text, 8, '0'),
      1 + g % 12, 'pass', 'Pass "Gold", monthly', 'paid', ts, ts + interval '1 month', ts,
      p.amount, '1.00', (p.amount - 1.00)::numeric(12,2), (p.amount - 1.00)::numeric(12,2), '0.00', false, '20.00',
      (p.amount - 1.00)::numeric(12,2), round((p.amount - 1.00) * 0.2, 2), null, 'tx_' || g, null, null, null,
      '{"checked": true, "base_matches_settled_fee": true}'
    from generate_series(1, ${LINES}) g,
      lateral (select timestamptz '2026-03-01' + g * interval '2.6 seconds' as ts) t,
      lateral (select (array[4.99, 9.99, 14.99, 19.99])[1 + g % 4]::numeric(12,2) as amount) p`.execute(db);
  await sql`analyze snapshot_line`.execute(db);
  await sql`analyze snapshot_recipient`.execute(db);
  return snapshotId;
}

// --- COPY ----------------------------------------------------------------------------------------------------------

/**
 * `COPY ... TO STDOUT` through node-postgres without an extra package: a submittable query that receives the
 * CopyData messages and counts their bytes (they are thrown away, as the HTTP client throws the download away).
 */
export function copyOut(client: pg.Client, text: string, keep?: Buffer[]): Promise<number> {
  return copyQuery(client, text, (chunk) => {
    // The parser reuses its buffer: keep a copy.
    keep?.push(Buffer.from(chunk));
  });
}

/** `COPY ... FROM STDIN`: the chunks (CSV of a `copyOut`) are sent as they are; resolves with nothing. */
export function copyIn(client: pg.Client, text: string, chunks: readonly Buffer[]): Promise<number> {
  return copyQuery(client, text, () => undefined, chunks);
}

type CopyConnection = {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
};

function copyQuery(
  client: pg.Client,
  text: string,
  onData: (chunk: Buffer) => void,
  send: readonly Buffer[] = [],
): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let failure: Error | null = null;
    let connected: CopyConnection | null = null;
    const submittable = {
      submit(connection: CopyConnection) {
        connected = connection;
        connection.query(text);
      },
      handleCopyData(message: { chunk: Buffer }) {
        bytes += message.chunk.length;
        onData(message.chunk);
      },
      handleCommandComplete() {},
      handleReadyForQuery() {
        if (failure) reject(failure);
        else resolve(bytes);
      },
      handleError(error: Error) {
        // node-postgres drops the query on an error (no ReadyForQuery reaches it): settle now.
        failure = error;
        reject(error);
      },
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
      handleCopyInResponse() {
        for (const chunk of send) connected?.sendCopyFromChunk(chunk);
        connected?.endCopyFrom();
      },
    };
    client.query(submittable as never);
  });
}

/** The export's own SELECT, with its two parameters inlined (COPY takes none). */
export function copyStatement(db: Db, client: pg.Client, snapshotId: string, gameId = GAME_ID): string {
  const compiled = selectLineCells(db, { gameId, snapshotId }).compile();
  const values = compiled.parameters.map((p) => client.escapeLiteral(String(p)));
  const select = compiled.sql.replace(/\$(\d+)/g, (_, n: string) => values[Number(n) - 1] as string);
  return `copy (${select}) to stdout (format csv, header)`;
}

// --- The export server (a child process) ----------------------------------------------------------------------------

async function serve(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL as string;
  const db = createDb(databaseUrl, { max: 4 });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const snapshotId = url.searchParams.get("snapshot") ?? "";
    exportResponse(db, {
      kind: "lines",
      snapshotId,
      gameId: url.searchParams.get("game") ?? GAME_ID,
      bom: false,
      actor: { id: "bench", email: "bench@payout-desk.test" },
      via: "web",
    })
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) return void res.end();
        await pipeline(Readable.fromWeb(response.body as never), res);
      })
      .catch((error: unknown) => {
        process.stderr.write(`export failed: ${String(error)}\n`);
        res.destroy();
      });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`);
  });
}

export async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", "bench/run.ts", "export", "--serve"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, NODE_ENV: "production", LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    child.stdout?.on("data", (data: Buffer) => {
      buffered += data.toString();
      const line = buffered.split("\n")[0];
      if (buffered.includes("\n") && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`the export server exited with ${code}`)));
  });
  return { child, port };
}

async function memoryOf(pid: number): Promise<{ rssKb: number; hwmKb: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
}

/** Downloads the export and throws the bytes away; returns the byte count. */
export function download(
  port: number,
  snapshotId: string,
  gameId = GAME_ID,
): Promise<{ bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: "127.0.0.1", port, path: `/lines?snapshot=${snapshotId}&game=${encodeURIComponent(gameId)}` },
        (res) => {
          let bytes = 0;
          res.on("data", (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on("end", () => resolve({ bytes, status: res.statusCode ?? 0 }));
          res.on("error", reject);
        },
      )
      .on("error", reject);
  });
}

// --- Run ----------------------------------------------------------------------------------------------------------

type Measured = { ms: number[]; bytes: number };

/** One warm-up download and COPY (not counted), then `runs` of each, alternating. */
async function measure(port: number, client: pg.Client, copySql: string, snapshotId: string, runs: number) {
  const http: Measured = { ms: [], bytes: 0 };
  const copy: Measured = { ms: [], bytes: 0 };
  for (let i = 0; i <= runs; i++) {
    let t0 = performance.now();
    const result = await download(port, snapshotId);
    const httpMs = performance.now() - t0;
    if (result.status !== 200) throw new Error(`export answered ${result.status}`);
    t0 = performance.now();
    const bytes = await copyOut(client, copySql);
    const copyMs = performance.now() - t0;
    if (i === 0) continue;
    http.ms.push(httpMs);
    copy.ms.push(copyMs);
    http.bytes = result.bytes;
    copy.bytes = bytes;
  }
  return { http, copy };
}

function figures(lines: number, measured: Measured) {
  const ms = median(measured.ms);
  return {
    median_ms: Math.round(ms),
    runs_ms: measured.ms.map(Math.round),
    bytes: measured.bytes,
    rows_per_s: Math.round(lines / (ms / 1000)),
    mb_per_s: +(measured.bytes / 1e6 / (ms / 1000)).toFixed(1),
  };
}

export async function run(args: string[]): Promise<void> {
  if (args.includes("--serve")) return serve();
  const { sizes, runs, profile } = exportBenchOptions(args, { lines: DEFAULT_LINES, runs: DEFAULT_RUNS });

  process.env.PAYOUT_DESK_KEY ??= randomBytes(32).toString("base64");
  process.env.LOG_LEVEL ??= "silent";
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-bench-export-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  let server: ChildProcess | null = null;
  try {
    await ensureDatabase(cluster.url, "bench_export");
    const databaseUrl = withDatabase(cluster.url, "bench_export");
    const db = createDb(databaseUrl, { max: 2 });
    await migrateToLatest(db);
    await seedGame(db);
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on("error", () => undefined);
    await client.connect();
    const started = await startServer(databaseUrl);
    server = started.child;
    const pid = server.pid as number;
    const baseline = await memoryOf(pid);

    for (const [i, lines] of sizes.entries()) {
      const seeding = performance.now();
      const snapshotId = await seed(db, lines, i + 1);
      const seedMs = performance.now() - seeding;
      const copySql = copyStatement(db, client, snapshotId);
      let peakRssKb = (await memoryOf(pid)).rssKb;
      const sampler = setInterval(() => {
        memoryOf(pid)
          .then((m) => {
            peakRssKb = Math.max(peakRssKb, m.rssKb);
          })
          .catch(() => undefined);
      }, 25);
      const measured = await measure(started.port, client, copySql, snapshotId, runs);
      clearInterval(sampler);
      const final = await memoryOf(pid);
      peakRssKb = Math.max(peakRssKb, final.rssKb);
      const http = figures(lines, measured.http);
      const copy = figures(lines, measured.copy);
      const ratio = copy.median_ms / http.median_ms;
      const growthMb = (peakRssKb - baseline.rssKb) / 1024;
      const parts = profile
        ? await profileExport(db, client, { gameId: GAME_ID, snapshotId, lines }, copySql)
        : undefined;
      process.stdout.write(
        `${JSON.stringify(
          {
            bench: "export",
            lines,
            recipients: RECIPIENTS,
            server: "separate Node process serving lib/exports/http.ts exportResponse (the route's code)",
            seed_ms: Math.round(seedMs),
            runs,
            http,
            copy,
            throughput_ratio: +ratio.toFixed(2),
            server_memory: {
              baseline_rss_mb: +(baseline.rssKb / 1024).toFixed(1),
              peak_rss_mb: +(peakRssKb / 1024).toFixed(1),
              peak_growth_mb: +growthMb.toFixed(1),
              vm_hwm_mb: +(final.hwmKb / 1024).toFixed(1),
            },
            meets_throughput: ratio >= 0.8,
            meets_memory: growthMb < 100,
            ...(parts ? { parts } : {}),
            load_average: os.loadavg().map((n) => +n.toFixed(2)),
          },
          null,
          2,
        )}\n`,
      );
    }
    await client.end();
    await db.destroy();
  } finally {
    if (server && server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server?.once("exit", resolve));
    }
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
