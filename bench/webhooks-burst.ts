// Benchmark of a webhook burst: N signed deliveries (N/2 distinct events, each delivered twice, as a service that
// retries does) sent at 20 at once to the receiving route over HTTP, while two `desk worker` processes drain them.
// Floors measured in the same run: N single-row INSERTs of the same rows at the same concurrency (what accepting
// cannot go below), and one INSERT … SELECT of a backlog of the same size (what processing it cannot go below).
//   npm run bench -- webhooks-burst [--deliveries 10000]
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { ensureDatabase } from "@/bin/runtime";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { countPendingWebhookEvents } from "@/db/queries/webhook-drain";
import { saveGame } from "@/lib/games/games";
import { enqueue, stopBoss } from "@/lib/jobs/queue";
import { drainWebhookEventsJob } from "@/lib/webhooks/drain-job";
import { receiveWebhook } from "@/lib/webhooks/receive";
import { signatureHeader } from "@/lib/webhooks/signature";
import { insertSnapshot } from "../tests/payouts/fixtures";

const GAME = "burst-game";
const SECRET = "whsec_bench_burst_1";
const CONCURRENCY = 20;
const WORKERS = 2;
const ROOT = path.resolve(import.meta.dirname, "..");

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 2) throw new Error(`--${name} must be a whole number of at least 2`);
  return value;
}

function eventBody(i: number): string {
  const kinds = ["subscription.refunded", "subscription.refunded", "subscription.renewed", "subscription.canceled"];
  const type = kinds[i % kinds.length] as string;
  const day = String((i % 28) + 1).padStart(2, "0");
  const subscription = `SUB_1767225600_${String(i).padStart(8, "0")}`;
  const data =
    type === "subscription.refunded"
      ? {
          subscription_id: subscription,
          item_id: "silver",
          period_seq: 2,
          transaction_id: `txn_${i}`,
          client_request_id: null,
          player_email: null,
          identity_id: null,
          amount_usd: "4.99",
          total_refunded_amount_usd: "4.99",
          period_amount_usd: "4.99",
          is_full_refund: true,
          reason: null,
          period_status: "refunded",
          refund: {
            funding_shape: "card",
            balance_delta_coins: "0.00",
            card_refunded_usd: "4.99",
            processor_refund_adopted: false,
            new_balance: null,
            invo_fee_retained: true,
            partner_revenue_reversed_usd: "2.50",
            partner_revenue_reversal_mode: "prorata",
          },
          revenue_share_attribution: null,
          metadata: null,
          refunded_at: `2026-10-${day}T12:00:00Z`,
        }
      : type === "subscription.renewed"
        ? { subscription_id: subscription, period_seq: 3, paid_at: `2026-10-${day}T08:00:00Z` }
        : { subscription_id: subscription, access_until: "2026-11-30T00:00:00Z", cancel_at_period_end: true };
  return JSON.stringify({
    event_id: `evt_burst_${i}`,
    event_type: type,
    created_at: `2026-10-${day}T12:00:00Z`,
    tenant_id: GAME,
    data,
  });
}

/** The receiving route without the framework around it: the same function the route handler calls. */
function startReceiver(db: Db): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const request = new Request(`http://localhost${req.url}`, {
        method: "POST",
        headers,
        body: Buffer.concat(chunks),
      });
      const response = await receiveWebhook(request, GAME, { db });
      res.writeHead(response.status, { "content-type": "application/json" });
      res.end(await response.text());
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function startWorker(databaseUrl: string, key: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["bin/desk.mjs", "worker", "--grace", "5"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PAYOUT_DESK_KEY: key, LOG_LEVEL: "warn", NODE_OPTIONS: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
      if (err.includes("working jobs")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`desk worker exited (${code}): ${err}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

async function inParallel(count: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return performance.now() - began;
}

async function waitProcessed(db: Db): Promise<number> {
  while ((await countPendingWebhookEvents(db)) > 0) await new Promise((r) => setTimeout(r, 100));
  return performance.now();
}

export async function run(args: string[]): Promise<void> {
  const deliveries = flag(args, "deliveries", 10_000);
  const distinct = Math.floor(deliveries / 2);
  const dir = await mkdtemp(path.join(os.tmpdir(), "burst-bench-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  const workers: ChildProcess[] = [];
  let server: Server | null = null;
  let db: Db | null = null;
  try {
    await ensureDatabase(cluster.url, "burst_bench");
    const url = withDatabase(cluster.url, "burst_bench");
    const key = randomBytes(32).toString("base64");
    Object.assign(process.env, { DATABASE_URL: url, PAYOUT_DESK_KEY: key, LOG_LEVEL: "warn" });
    db = createDb(url, { max: 24 });
    const live = db;
    await migrateToLatest(live);
    await saveGame(
      live,
      {
        id: GAME,
        name: "Burst",
        environment: "sandbox",
        baseUrl: "http://127.0.0.1:9",
        secret: "gs_bench_secret_1",
        webhookSecrets: [SECRET],
      },
      { replace: true, as: { actor: null, via: "cli" } },
    );

    // October has a published version read before the burst: the burst makes it stale (once per window and drain).
    await insertSnapshot(
      live,
      { window: "2026-10", recipients: [], fetchStartedAt: new Date("2026-11-01T01:00:00Z") },
      GAME,
    );

    // Floor for accepting: the same rows, one INSERT each, at the same concurrency, into a table shaped the same.
    await sql`create table floor_event (like webhook_event including defaults)`.execute(live);
    const floorMs = await inParallel(deliveries, async (i) => {
      await sql`insert into floor_event (id, game_id, idempotency_key, event_id, event_type, signed_with,
                  signature_timestamp, body) values (${i}, ${GAME}, ${`idem_${i}`}, ${`evt_${i}`},
                  'subscription.refunded', 'current', now(), ${eventBody(i % distinct)})`.execute(live);
    });

    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker(url, key));
    server = await startReceiver(live);
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/service/${GAME}`;
    const statuses = new Map<number, number>();
    // Each event twice: the second copies come after all the first ones, in another order.
    const order = Array.from({ length: deliveries }, (_, i) => (i < distinct ? i : (i * 7919) % distinct));
    const began = performance.now();
    const acceptMs = await inParallel(deliveries, async (i) => {
      const n = order[i] as number;
      const body = eventBody(n);
      const response = await fetch(target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-service-signature": signatureHeader(body, Math.floor(Date.now() / 1000), [SECRET]),
          "x-service-idempotency-key": `idem_burst_${n}`,
          "x-service-event-id": `evh_${i}`,
        },
        body,
      });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    });
    const lastDelivery = performance.now();
    const processedAt = await waitProcessed(live);
    const stored = await sql<{ n: string; once: string; first: Date; last: Date }>`
      select count(*) as n, count(*) filter (where attempts = 1) as once, min(processed_at) as first,
             max(processed_at) as last from webhook_event`.execute(live);
    const marks = await sql<{ n: string }>`select count(*) as n from snapshot_stale_mark`.execute(live);
    const s = stored.rows[0] as { n: string; once: string; first: Date; last: Date };

    // Processing alone: a backlog of the same size made with one INSERT … SELECT (its floor), then drained.
    const backlogBegan = performance.now();
    await sql`insert into webhook_event (game_id, idempotency_key, event_id, event_type, signed_with,
                signature_timestamp, occurred_at, subscription_id, body)
              select game_id, idempotency_key || '-b', event_id || '-b', event_type, signed_with, signature_timestamp,
                     occurred_at, subscription_id, body from webhook_event`.execute(live);
    const backlogInsertMs = performance.now() - backlogBegan;
    const drainBegan = performance.now();
    await enqueue(drainWebhookEventsJob, {});
    const drainMs = (await waitProcessed(live)) - drainBegan;

    const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000);
    const report = {
      deliveries,
      distinctEvents: distinct,
      concurrency: CONCURRENCY,
      workers: WORKERS,
      answered: Object.fromEntries(statuses),
      stored: Number(s.n),
      processedOnce: Number(s.once),
      staleMarks: Number(marks.rows[0]?.n ?? 0),
      acceptPerSecond: perSecond(deliveries, acceptMs),
      floorInsertPerSecond: perSecond(deliveries, floorMs),
      acceptVsFloor: Number((floorMs / acceptMs).toFixed(3)),
      processedWithinSecondsOfLastDelivery: Number(((processedAt - lastDelivery) / 1000).toFixed(1)),
      burstSeconds: Number(((processedAt - began) / 1000).toFixed(1)),
      backlogEvents: distinct,
      backlogProcessPerSecond: perSecond(distinct, drainMs),
      backlogInsertFloorPerSecond: perSecond(distinct, backlogInsertMs),
      processVsInsertFloor: Number((backlogInsertMs / drainMs).toFixed(3)),
      target: "every event processed within 60 s of the last delivery",
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const w of workers) await stopWorker(w);
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await stopBoss().catch(() => undefined);
    await db?.destroy();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
