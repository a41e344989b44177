// Benchmark of the shared pacer: what keeping the service's rate limits across a fleet costs per call.
// Each admission through the PostgreSQL-backed pacer is one statement; its floor is a bare `select 1` round trip
// through the same pool, measured in the same run. The in-process pacer is shown for comparison. Limits are set
// above the calls made, so that only the bookkeeping is measured, never a wait.
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { ensureDatabase } from "@/bin/runtime";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { createPacer, type Pacer, type RateRule } from "@/lib/service/pacing";
import { createSharedPacer } from "@/lib/service/shared-pacer";

// Below the largest documented limit (balance reads, 1,500 a minute), so nothing waits and every bucket grows to
// nearly a full window: the most bookkeeping a bucket ever holds.
const CALLS = 1_400;
// Each measure paces its own game, so that no measure fills another's buckets.
const PROCESSES = 4;
const LIMITS: Record<string, readonly RateRule[]> = {
  reporting_detail: [
    { scope: "game", limit: 1_500, perMs: 60_000, source: "chosen" },
    { scope: "subscription", limit: 1_500, perMs: 60_000, source: "chosen" },
  ],
};

type Result = { name: string; calls: number; perCallMs: number };

async function sequential(name: string, call: (i: number) => Promise<unknown>): Promise<Result> {
  const began = performance.now();
  for (let i = 0; i < CALLS; i += 1) await call(i);
  return { name, calls: CALLS, perCallMs: (performance.now() - began) / CALLS };
}

async function concurrent(name: string, pacers: Pacer[]): Promise<Result> {
  const began = performance.now();
  await Promise.all(
    pacers.map(async (pacer, p) => {
      for (let i = 0; i < CALLS / pacers.length; i += 1) {
        await pacer.acquire(pacer.keysFor("reporting_detail", { gameId: "bench-fleet", subscriptionId: `SUB_${p}` }));
      }
    }),
  );
  return { name, calls: CALLS, perCallMs: (performance.now() - began) / CALLS };
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "pacing-bench-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  let db: Db | null = null;
  try {
    await ensureDatabase(cluster.url, "pacing_bench");
    db = createDb(withDatabase(cluster.url, "pacing_bench"));
    await migrateToLatest(db);
    const live = db;
    const memory = createPacer({ limits: LIMITS });
    const shared = createSharedPacer(live, { limits: LIMITS });
    const keys = (pacer: Pacer) =>
      pacer.keysFor("reporting_detail", {
        gameId: pacer === memory ? "bench-memory" : "bench-one",
        subscriptionId: "SUB_1",
      });
    const floor = await sequential("select 1 through the pool (floor)", () => sql`select 1`.execute(live));
    const results = [
      floor,
      await sequential("in-process pacer (today's, one process only)", () => memory.acquire(keys(memory))),
      await sequential("shared pacer, one process", () => shared.acquire(keys(shared))),
      await concurrent(
        `shared pacer, ${PROCESSES} processes at once on one game`,
        Array.from({ length: PROCESSES }, () => createSharedPacer(live, { limits: LIMITS })),
      ),
    ];
    process.stdout.write(
      `\nPacer cost per admitted call (two buckets: game and subscription), ${CALLS} calls each\n\n`,
    );
    process.stdout.write("| Pacer | per call | / select 1 |\n|---|---|---|\n");
    for (const r of results) {
      process.stdout.write(
        `| ${r.name} | ${(r.perCallMs * 1000).toFixed(0)} µs | ${(r.perCallMs / floor.perCallMs).toFixed(2)}× |\n`,
      );
    }
  } finally {
    await db?.destroy();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
