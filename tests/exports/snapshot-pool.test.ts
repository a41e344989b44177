import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb, type Db, poolOf } from "@/db";
import { startExport } from "@/lib/exports/run";
import { readCsv } from "../support/csv";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { gameWithBatch } from "./fixture";

/**
 * A payout file or journal is read from one snapshot of the database, a transaction holding one of the pool's
 * connections, while its audit lines are written through another. As many downloads at once as the pool has
 * connections must all finish: none may hold the last connection while waiting for one more.
 */

const GAME = "pool-a";
let t: TestDatabase;
let small: Db;
let batchId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ batchId } = await gameWithBatch(t.db, {
    gameId: GAME,
    status: "paid",
    statements: [1, 2, 3].map((i) => ({
      recipientId: 500 + i,
      name: `Recipient ${i}`,
      email: `r${i}@example.test`,
      gross: `${30 + i}.00`,
      reversed: "0.00",
      state: "paid" as const,
    })),
  }));
  small = createDb(t.url, { max: 3 });
});
afterAll(async () => {
  await small?.destroy();
  await t?.drop();
});

async function download(kind: "payouts" | "journal"): Promise<string> {
  const started = await startExport(small, { kind, batchId, bom: false, actor: null, via: "cli" });
  const chunks: Buffer[] = [];
  for await (const chunk of started.chunks) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

it("finishes twice as many one-snapshot downloads at once as the pool has connections", async () => {
  const files = await Promise.all(Array.from({ length: 6 }, (_, i) => download(i % 2 === 0 ? "payouts" : "journal")));
  for (const [i, text] of files.entries()) {
    const rows = readCsv(text);
    expect(rows.length, `download ${i + 1}`).toBeGreaterThan(0);
  }
  expect(readCsv(files[0] as string).map((row) => row.recipient_player_id)).toEqual(["501", "502", "503"]);
  const pool = poolOf(small);
  expect(pool.totalCount - pool.idleCount).toBe(0);
  const lines = await t.db
    .selectFrom("audit_log")
    .select(["outcome"])
    .where("game_id", "=", GAME)
    .where("action", "in", ["export.payouts", "export.journal"])
    .execute();
  expect(lines.filter((line) => line.outcome === "started")).toHaveLength(6);
  expect(lines.filter((line) => line.outcome === "succeeded")).toHaveLength(6);
});

it("refuses a one-snapshot download on a pool of one connection at once, instead of waiting for a second", async () => {
  const single = createDb(t.url, { max: 1 });
  try {
    await expect(
      startExport(single, { kind: "journal", batchId, bom: false, actor: null, via: "cli" }),
    ).rejects.toThrow(/at least two connections/);
    const pool = poolOf(single);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  } finally {
    await single.destroy();
  }
});

it("gives the reading back and records the download aborted when it is closed before its first chunk", async () => {
  const started = await startExport(small, { kind: "journal", batchId, bom: false, actor: null, via: "cli" });
  await started.chunks.return();
  const pool = poolOf(small);
  expect(pool.totalCount - pool.idleCount).toBe(0);
  const line = await t.db
    .selectFrom("audit_log")
    .select(["outcome"])
    .where("idempotency_key", "=", started.exportId)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  expect(line.outcome).toBe("aborted");
  // Every reading slot is free again: as many downloads as the pool has connections still finish.
  expect(await Promise.all([download("journal"), download("payouts"), download("journal")])).toHaveLength(3);
});
