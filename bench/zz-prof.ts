import { randomBytes } from "node:crypto";
import { chmod, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDb } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { startEmulator } from "@/emulator/server";
import { saveGame } from "@/lib/games/games";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { parseWindow } from "@/lib/time";
import { buildScenario, GAME_ID, GAME_SECRET } from "/work/main/tests/snapshots/scenario";
const dir = await mkdtemp(path.join(os.tmpdir(), "prof-")); await chmod(dir, 0o755);
const cluster = await startCluster({ clusterDir: path.join(dir, "pg"), password: "x" + randomBytes(6).toString("hex"), durable: false });
const a = createDb(cluster.url, { max: 1 }); const { sql } = await import("kysely"); await sql`create database b`.execute(a); await a.destroy();
const url = withDatabase(cluster.url, "b"); process.env.DATABASE_URL = url; process.env.PAYOUT_DESK_KEY = randomBytes(32).toString("base64"); process.env.LOG_LEVEL = "warn";
const db = createDb(url, { max: 8 }); await migrateToLatest(db);
const em = await startEmulator({ port: 0, scenario: buildScenario({ recipients: 2000, renewalsPerRecipient: 10, reversals: 1000, refundDelayMs: 86400000, start: "2026-01-01T00:00:00Z", end: "2026-04-01T00:00:00Z" }), rateLimits: "off" });
await saveGame(db, { id: GAME_ID, name: "B", environment: "sandbox", baseUrl: em.url, secret: GAME_SECRET, webhookSecrets: [] }, { replace: false });
await db.updateTable("game").set({ settings: JSON.stringify({ pacing: "off" }) }).execute();
const W = parseWindow("2026-01-01", "2026-04-01");
for (let i = 0; i < 3; i++) {
  const t0 = performance.now(); let last = t0; const marks: string[] = [];
  await takeSnapshotNow(db, { gameId: GAME_ID, window: W, requestedBy: null, via: "x" }, { onProgress: (p) => { if (p.phase !== marks.at(-1)?.split("@")[0]) { const now = performance.now(); marks.push(`${p.phase}@${Math.round(now - t0)}`); last = now; } } });
  console.log(Math.round(performance.now() - t0), marks.filter(m => !m.startsWith("@")).join(" | "));
}
await em.close(); await db.destroy(); await cluster.stop();
