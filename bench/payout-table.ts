// Benchmark of the recipient payout table (issue 5): pages of a 20,000-recipient window, 20 concurrent clients.
// Measured at the query layer (db/queries/payouts.ts `listPayoutTable`, the function the window page calls, through
// the app's own pool of 10 connections), on a throwaway embedded PostgreSQL. Target: p95 under 300 ms.
// Baselines in the same run and the same concurrency: a bare `select 1` round trip through the pool, and the same
// table read straight from the snapshot's recipients (no payout batch joined in).
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { ensureDatabase } from "@/bin/runtime";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { listPayoutTable, type PayoutTableQuery } from "@/db/queries/payouts";
import { approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { monthWindow } from "@/lib/time";

const RECIPIENTS = 20_000;
const CLIENTS = 20;
const REQUESTS_PER_CLIENT = 60;
const GAME = "bench-game";
const WINDOW = monthWindow("2026-03");
const TARGET_P95_MS = 300;
const UNATTRIBUTED_NONE = {
  no_revenue_share_configured: 0,
  spend_order_not_found: 0,
  attribution_not_recorded: 0,
  attribution_malformed: 0,
};

type Request = Omit<PayoutTableQuery, "gameId" | "snapshotId" | "batchId"> & { name: string };

/** What people do with the table: first pages of each sort, deep pages, filters, searches, bigger pages. */
const MIX: Request[] = [
  { name: "net desc, page 1", sort: "net", dir: "desc", page: 1, pageSize: 50 },
  { name: "net desc, page 200", sort: "net", dir: "desc", page: 200, pageSize: 50 },
  { name: "payable desc, page 1", sort: "payable", dir: "desc", page: 1, pageSize: 50 },
  { name: "payable asc, page 399", sort: "payable", dir: "asc", page: 399, pageSize: 50 },
  { name: "carried in desc, page 3", sort: "carried_in", dir: "desc", page: 3, pageSize: 50 },
  { name: "recipient asc, page 100", sort: "recipient", dir: "asc", page: 100, pageSize: 50 },
  { name: "gross desc, page 1, 200 rows", sort: "gross", dir: "desc", page: 1, pageSize: 200 },
  { name: "state sort, page 10", sort: "state", dir: "asc", page: 10, pageSize: 50 },
  { name: "state = draft", sort: "net", dir: "desc", page: 1, pageSize: 50, state: "draft" },
  { name: "show flagged", sort: "net", dir: "desc", page: 1, pageSize: 50, filter: "flagged" },
  { name: "show negative", sort: "net", dir: "asc", page: 1, pageSize: 50, filter: "negative" },
  { name: "search name prefix", sort: "net", dir: "desc", page: 1, pageSize: 50, q: "creator 123" },
  { name: "search email prefix", sort: "net", dir: "desc", page: 1, pageSize: 50, q: "creator777@" },
  { name: "search player id", sort: "net", dir: "desc", page: 1, pageSize: 50, q: "104321" },
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function seed(db: Db): Promise<{ snapshotId: string; batchId: string; prepareMs: number }> {
  await db
    .insertInto("game")
    .values({
      id: GAME,
      name: "Bench",
      environment: "sandbox",
      base_url: "http://127.0.0.1:9",
      secret_sealed: "x",
      secret_mask: "x",
      settings: "{}",
      updated_at: new Date(),
    })
    .execute();
  const pullId = "00000000-0000-4000-8000-000000000001";
  const snapshotId = "00000000-0000-4000-8000-000000000002";
  const start = new Date(WINDOW.startMs);
  const end = new Date(WINDOW.endMs);
  await db
    .insertInto("snapshot_pull")
    .values({
      id: pullId,
      game_id: GAME,
      window_start: start,
      window_end: end,
      status: "complete",
      via: "bench",
      requested_by_id: null,
      requested_by_email: null,
    })
    .execute();
  await sql`insert into snapshot (id, game_id, window_start, window_end, version, pull_id, fetch_started_at,
  fetch_finished_at,
      service_generated_at, window_closed, built_from, page_count, request_count, rate_limited, retries, duration_ms,
      sub_window_count,
      line_count, reversal_count, refund_event_count, renewals_settled, settled_gross_usd, invo_fee_usd,
      partner_revenue_settled_usd,
      partner_revenue_reversed_usd, partner_revenue_usd, renewals_with_attribution, renewals_without_attribution,
      unattributed_reasons,
      gross_attributed_usd, reversed_attributed_usd, net_attributed_usd, renewals_settled_then_fully_reversed,
      refund_events_in_window,
      reversals_without_receipts, recipient_count, report, attribution_notice, checks, build_notes, drift_status)
    values (${snapshotId}, ${GAME}, ${start}, ${end}, 1, ${pullId}, ${end}, ${end}, ${end}, true, 'single', 1, 1, 0,
    0, 1, 0,
      ${RECIPIENTS}, 0, 0, ${RECIPIENTS}, '0', '0', '0', '0', '0', ${RECIPIENTS}, 0,
      ${JSON.stringify(UNATTRIBUTED_NONE)},
      '0', '0', '0', 0, 0, 0, ${RECIPIENTS}, '{}', '{}', '[]', '[]', 'first_version')`.execute(db);
  // Deterministic figures: gross 0.50–600.49, every 9th recipient with a reversal, every 250th unresolved.
  await sql`insert into snapshot_recipient (snapshot_id, recipient_player_id, service_rank, resolved, player_email,
  player_name,
      identity_id, renewal_count, subscription_count, reversal_count, gross_attributed_usd, reversed_attributed_usd,
      net_attributed_usd, first_paid_at, last_paid_at)
    select ${snapshotId}::uuid, 100000 + i, i, i % 250 <> 0,
      case when i % 250 <> 0 then 'creator' || i || '@bench.test' end, case when i % 250 <> 0 then 'Creator ' || i
      end, null,
      1 + i % 40, 1 + i % 7, case when i % 9 = 0 then 1 else 0 end,
      g, r, g - r, ${start}, ${start}
    from (select i, round(((i * 7919) % 60000 + 50)::numeric / 100, 2) as g,
      case when i % 9 = 0 then round(((i * 104729) % 70000)::numeric / 100, 2) else 0 end as r
      from generate_series(1, ${RECIPIENTS}) i) x`.execute(db);
  await sql`insert into snapshot_line (snapshot_id, period_id, recipient_player_id, subscription_id, period_seq,
  item_id, item_name,
      status, period_start, period_end, paid_at, amount_usd, partner_leg_reversed, attributed_amount_usd,
      attribution_unavailable_reason)
    select ${snapshotId}::uuid, i, 100000 + i, 'SUB_1700000000_' || lpad(i::text, 8, '0'), 1, 'pass', 'Pass', 'paid',
      ${start}, ${end}, ${start}, '10.00', false, '2.00', case when i % 500 = 0 then 'attribution_malformed' end
    from generate_series(1, ${RECIPIENTS}) i`.execute(db);
  await sql`vacuum analyze`.execute(db);
  const began = performance.now();
  const prepared = await preparePayoutBatch(
    db,
    { gameId: GAME, window: WINDOW },
    { actor: { id: "bench", email: "bench@payout-desk.test" }, via: "web" },
  );
  const prepareMs = performance.now() - began;
  // Half the statements approved, so state filters and sorts see a realistic mix.
  const ids = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", prepared.batchId)
    .where(sql<boolean>`recipient_player_id % 2 = 0`)
    .execute();
  await approveStatements(
    db,
    { gameId: GAME, batchId: prepared.batchId, ids: ids.map((r) => r.id) },
    { actor: { id: "bench", email: "bench@payout-desk.test" }, via: "web" },
  );
  // What autovacuum does shortly after a bulk change (10,000 updated statements): statistics and the visibility map.
  await sql`vacuum analyze`.execute(db);
  return { snapshotId, batchId: prepared.batchId, prepareMs };
}

async function runLoad(
  name: string,
  call: (request: Request) => Promise<unknown>,
): Promise<{
  name: string;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  n: number;
  wallMs: number;
  perMix: Map<string, number[]>;
}> {
  const latencies: number[] = [];
  const perMix = new Map<string, number[]>();
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; i < REQUESTS_PER_CLIENT; i += 1) {
        const request = MIX[(client * 7 + i) % MIX.length] as Request;
        const t0 = performance.now();
        await call(request);
        const ms = performance.now() - t0;
        latencies.push(ms);
        perMix.set(request.name, [...(perMix.get(request.name) ?? []), ms]);
      }
    }),
  );
  return {
    name,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    n: latencies.length,
    wallMs: performance.now() - began,
    perMix,
  };
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-table-bench-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  let db: Db | null = null;
  try {
    await ensureDatabase(cluster.url, "payout_table_bench");
    db = createDb(withDatabase(cluster.url, "payout_table_bench"));
    await migrateToLatest(db);
    process.stderr.write(`seeding ${RECIPIENTS.toLocaleString("en-US")} recipients and preparing the batch…\n`);
    const { snapshotId, batchId, prepareMs } = await seed(db);
    const live = db;
    // Warm-up: plans and caches, as on a page that has been opened before.
    for (const request of MIX) await listPayoutTable(live, { ...request, gameId: GAME, snapshotId, batchId });

    const results = [
      await runLoad("select 1 through the pool (floor)", () => sql`select 1`.execute(live)),
      await runLoad("snapshot recipients only (no batch)", (r) =>
        listPayoutTable(live, { ...r, state: undefined, gameId: GAME, snapshotId, batchId: null }),
      ),
      await runLoad("payout table with its batch (the window page)", (r) =>
        listPayoutTable(live, { ...r, gameId: GAME, snapshotId, batchId }),
      ),
    ];
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    process.stdout.write(
      `\nPayout table, ${RECIPIENTS.toLocaleString("en-US")} recipients, ${CLIENTS} concurrent clients × ` +
        `${REQUESTS_PER_CLIENT} requests, pool of 10\n`,
    );
    process.stdout.write(`Batch of ${RECIPIENTS.toLocaleString("en-US")} statements prepared in ${fmt(prepareMs)}\n\n`);
    process.stdout.write(
      "| Workload | requests | p50 | p95 | p99 | max | throughput |\n|---|---|---|---|---|---|---|\n",
    );
    for (const r of results) {
      process.stdout.write(
        `| ${r.name} | ${r.n} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${fmt(r.max)} | ` +
          `${((r.n / r.wallMs) * 1000).toFixed(0)} req/s |\n`,
      );
    }
    const table = results[2];
    if (table) {
      process.stdout.write("\nPer request kind (payout table with its batch), p95:\n");
      for (const [name, values] of table.perMix)
        process.stdout.write(`  ${name.padEnd(32)} ${fmt(percentile(values, 95))}\n`);
      const ok = table.p95 < TARGET_P95_MS;
      process.stdout.write(`\np95 ${fmt(table.p95)}: ${ok ? "within" : "OVER"} the ${TARGET_P95_MS} ms target\n`);
      if (!ok) process.exitCode = 1;
    }
  } finally {
    await db?.destroy();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
