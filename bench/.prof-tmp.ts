import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync, readFileSync } from "node:fs";
import pg from "pg";
import { createDb } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { ensureDatabase } from "@/bin/runtime";
import { exportResponse } from "@/lib/exports/http";
import { seed, copyOut, copyStatement } from "@/bench/export";

process.env.PAYOUT_DESK_KEY ??= "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
process.env.LOG_LEVEL = "silent";
const cluster = await startCluster({ clusterDir: "/tmp/bprof/pg", password: "benchpass", durable: false });
await ensureDatabase(cluster.url, "b");
const url = withDatabase(cluster.url, "b");
const db = createDb(url, { max: 4 });
let snapshotId: string;
if (existsSync("/tmp/bprof/snap")) snapshotId = readFileSync("/tmp/bprof/snap", "utf8");
else { await migrateToLatest(db); snapshotId = await seed(db); writeFileSync("/tmp/bprof/snap", snapshotId); }
const mode = process.argv[2] ?? "http";
for (let i = 0; i < Number(process.argv[3] ?? 2); i++) {
  const t0 = performance.now();
  let bytes = 0;
  if (mode === "copy") {
    const client = new pg.Client({ connectionString: url }); await client.connect();
    bytes = await copyOut(client, copyStatement(db, client, snapshotId)); await client.end();
  } else {
    const res = await exportResponse(db, { kind: "lines", snapshotId, gameId: "bench-export", bom: false, actor: null, via: "cli" });
    const reader = res.body!.getReader();
    for (;;) { const r = await reader.read(); if (r.done) break; bytes += r.value.length; }
  }
  console.log(mode, Math.round(performance.now() - t0), "ms", bytes, "rss", Math.round(process.memoryUsage().rss/1e6));
}
await db.destroy();
if (process.argv[4] === "stop") await cluster.stop();
