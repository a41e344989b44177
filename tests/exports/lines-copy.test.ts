import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { poolOf } from "@/db";
import { streamCopyOut } from "@/db/queries/copy";
import type { CsvRecords } from "@/lib/exports/csv-records";
import { linePages } from "@/lib/exports/lines";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { addGame, insertSnapshot, type LineInput } from "./fixture";
import { SLACK } from "../support/slack";

/**
 * How the lines file is read from PostgreSQL: one COPY statement for the whole file when the reader keeps up, and
 * when it does not, a bounded amount held for it and no connection, with the file still byte for byte the same.
 */

const GAME = "exp-copy";
let t: TestDatabase;
let snapshotId: string;
let nanSnapshotId: string;

const NAMES = ['Studio, "Quoted"', "Line one\nLine two\r\nLine three", "=HYPERLINK(1)", "Créateur – 東京", ""];

function lines(count: number): LineInput[] {
  return Array.from({ length: count }, (_, i) => ({
    periodId: 1_000 + i * 3,
    recipientId: 800 + (i % NAMES.length),
    itemName: i % 2 === 0 ? 'Pass "Gold", monthly' : "Pass\nSilver",
    paidAt: new Date(Date.UTC(2026, 2, 1) + i * 61_250).toISOString(),
    amountUsd: "9.99",
    attributedUsd: i % 5 === 0 ? null : "1.80",
  }));
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  const recipients = NAMES.map((name, i) => ({ id: 800 + i, name, email: `c${i}@example.test` }));
  snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients,
    lines: lines(12_345),
  });
  nanSnapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-04-01T00:00:00Z",
    end: "2026-05-01T00:00:00Z",
    recipients,
    lines: [
      ...lines(3),
      { periodId: 99_999, recipientId: 800, paidAt: "2026-04-02T00:00:00Z", amountUsd: "NaN", attributedUsd: null },
    ],
  });
});
afterAll(async () => t?.drop());

function inUse(): number {
  const pool = poolOf(t.db);
  return pool.totalCount - pool.idleCount;
}

/** Counts the statements sent on connections taken from the pool while `work` runs. */
async function countingStatements<T>(work: () => Promise<T>): Promise<{ statements: number; value: T }> {
  const pool = poolOf(t.db);
  let statements = 0;
  const wrapped: [pg.PoolClient, pg.PoolClient["query"]][] = [];
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const spy = vi.spyOn(pool, "connect").mockImplementation((async () => {
    const client = await connect();
    const query = client.query;
    wrapped.push([client, query]);
    client.query = ((...args: unknown[]) => {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(client, args);
    }) as typeof client.query;
    return client;
  }) as never);
  try {
    const value = await work();
    return { statements, value };
  } finally {
    spy.mockRestore();
    for (const [client, query] of wrapped) client.query = query;
  }
}

async function fileOf(records: AsyncIterable<CsvRecords>, pause?: () => Promise<void>) {
  const parts: Buffer[] = [];
  let rows = 0;
  for await (const page of records) {
    parts.push(Buffer.from(page.bytes));
    rows += page.ends.length;
    await pause?.();
  }
  return { bytes: Buffer.concat(parts), rows };
}

describe("the lines file read by COPY", () => {
  it("reads the whole file with one statement when the reader keeps up", async () => {
    const { statements, value } = await countingStatements(() => fileOf(linePages(t.db, { gameId: GAME, snapshotId })));
    expect(value.rows).toBe(12_345);
    expect(statements).toBe(1);
    expect(inUse()).toBe(0);
  });

  it("a stalled reader is handed at most the bound before the statement is cut, and holds no connection", async () => {
    const statement = `copy (select g, repeat('x', 100) from generate_series(1, 200000) g) to stdout (format csv)`;
    const output = streamCopyOut(t.db, statement, { maxBufferedBytes: 64 * 1024, pieceBytes: 8 * 1024 });
    const first = await output.next();
    expect(first.done).toBe(false);
    // The reader stalls: PostgreSQL goes on writing until the bound is passed, then the statement is cut.
    await vi.waitFor(() => expect(inUse()).toBe(0), { timeout: 10_000 * SLACK });
    let after = 0;
    let next = await output.next();
    while (!next.done) {
      after += next.value.length;
      expect(next.value.length).toBeLessThanOrEqual(8 * 1024);
      next = await output.next();
    }
    expect(next.value).toEqual({ cut: true });
    expect(after).toBeLessThanOrEqual(64 * 1024);
  });

  it("a slow reader gets the same bytes, read by several statements that each held little", async () => {
    const target = { gameId: GAME, snapshotId };
    const fast = await fileOf(linePages(t.db, target));
    let pieces = 0;
    const { statements, value: slow } = await countingStatements(() =>
      // After every fifth piece the reader waits until no connection is held: the statement has been cut (or has
      // ended).
      fileOf(linePages(t.db, target, { maxBufferedBytes: 256 * 1024 }), async () => {
        if (++pieces % 5 === 0)
          await vi.waitFor(() => expect(inUse()).toBe(0), { timeout: 10_000 * SLACK, interval: 5 });
      }),
    );
    expect(slow.rows).toBe(12_345);
    expect(slow.bytes.equals(fast.bytes)).toBe(true);
    expect(statements).toBeGreaterThan(5);
  });

  it("a reader that stops early gives the connection up", async () => {
    for await (const page of linePages(t.db, { gameId: GAME, snapshotId }, { maxBufferedBytes: 64 * 1024 })) {
      expect(page.ends.length).toBeGreaterThan(0);
      break;
    }
    await vi.waitFor(() => expect(inUse()).toBe(0), { timeout: 10_000 * SLACK });
  });

  it("refuses a decimal that is not a number, as the CSV writer does", async () => {
    await expect(fileOf(linePages(t.db, { gameId: GAME, snapshotId: nanSnapshotId }))).rejects.toThrow(
      /column amount_usd holds NaN, not a decimal number/,
    );
    await vi.waitFor(() => expect(inUse()).toBe(0), { timeout: 10_000 * SLACK });
  });
});
