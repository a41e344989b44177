import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { poolOf } from "@/db";
import { type Cells, streamKeysetCells } from "@/lib/exports/stream";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { SLACK } from "../support/slack";

/**
 * The streamed keyset read behind the renewal-line export: every row once and in key order across page
 * boundaries, and its connection back in the pool however the reader stops.
 */

const WAIT = { timeout: 10_000 * SLACK };

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
  await sql`create table stream_probe (id bigint primary key, v text)`.execute(t.db);
  await sql`insert into stream_probe select g, g::text from generate_series(1, 100) g`.execute(t.db);
});
afterAll(async () => t?.drop());

function probe(options: { failAfter?: string; limit?: number } = {}) {
  const db = t.db.withTables<{ stream_probe: { id: string; v: string | null } }>();
  return (pageSize: number) => (after: string | null) => {
    let query = db
      .selectFrom("stream_probe")
      // The page after options.failAfter reads a value that is not a number: PostgreSQL refuses that page.
      .select([
        sql<string>`id::text`.as("id"),
        after !== null && after === options.failAfter ? sql<string>`('x' || v)::int::text`.as("v") : "v",
      ])
      .where("id", "<=", String(options.limit ?? 100))
      .orderBy("stream_probe.id")
      .limit(pageSize);
    if (after !== null) query = query.where("id", ">", after);
    return query;
  };
}

async function readAll(batches: AsyncIterable<Cells[]>): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  for await (const batch of batches) {
    sizes.push(batch.length);
    for (const cells of batch) ids.push(cells[0] as string);
  }
  return { ids, sizes };
}

function inUse(): number {
  const pool = poolOf(t.db);
  return pool.totalCount - pool.idleCount;
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

describe("streamKeysetCells", () => {
  it("hands on every row once, in key order, in batches no larger than asked, across page boundaries", async () => {
    const { ids, sizes } = await readAll(
      streamKeysetCells(t.db, probe()(7), { keyIndex: 0, pageSize: 7, batchRows: 3 }),
    );
    expect(ids).toEqual(oneTo(100));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(inUse()).toBe(0);
  });

  it("ends when a full last page is followed by an empty one", async () => {
    const { ids } = await readAll(
      streamKeysetCells(t.db, probe({ limit: 21 })(7), { keyIndex: 0, pageSize: 7, batchRows: 4 }),
    );
    expect(ids).toEqual(oneTo(21));
  });

  it("gives the cells as PostgreSQL's text, nulls as null", async () => {
    const db = t.db.withTables<{ stream_probe: { id: string; v: string | null } }>();
    const rows: Cells[] = [];
    const query = () =>
      db
        .selectFrom("stream_probe")
        .select([sql<string>`'12.30'::numeric::text`.as("d"), sql<null>`null::text`.as("n")])
        .where("id", "=", "1");
    for await (const batch of streamKeysetCells(t.db, query, { keyIndex: 0, pageSize: 10 })) rows.push(...batch);
    expect(rows).toEqual([["12.30", null]]);
  });

  it(
    "gives the connection back when the reader stops " + "early, and reads at most the page already asked for",
    async () => {
      let pages = 0;
      const page = probe()(10);
      const counted = (after: string | null) => {
        pages++;
        return page(after);
      };
      for await (const batch of streamKeysetCells(t.db, counted, { keyIndex: 0, pageSize: 10, batchRows: 2 })) {
        expect(batch[0]![0]).toBe("1");
        break;
      }
      // The next page is asked for as soon as the previous one has arrived, so one may be under way; no more.
      expect(pages).toBeLessThanOrEqual(2);
      expect(inUse()).toBe(0);
    },
  );

  it(
    "holds back the next page while the reader is behind, " + "holding no connection, and goes on when it reads again",
    async () => {
      let pages = 0;
      const page = probe()(10);
      const counted = (after: string | null) => {
        pages++;
        return page(after);
      };
      const ids: string[] = [];
      let paused = true;
      for await (const batch of streamKeysetCells(t.db, counted, { keyIndex: 0, pageSize: 10, batchRows: 5 })) {
        for (const cells of batch) ids.push(cells[0] as string);
        if (paused) {
          paused = false;
          // A reader that stalls after its first batch: the read stops after the page behind the one being read.
          await vi.waitFor(() => expect(pages).toBe(2), WAIT);
          await vi.waitFor(() => expect(inUse()).toBe(0), WAIT);
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect(pages).toBe(2);
        }
      }
      expect(ids).toEqual(oneTo(100));
      expect(pages).toBe(11);
    },
  );

  it("fails with the page's error when its query cannot even be built, and gives everything back", async () => {
    const read = (async () => {
      for await (const _ of streamKeysetCells(
        t.db,
        () => {
          throw new Error("no such column");
        },
        { keyIndex: 0, pageSize: 10 },
      )) {
        // never reached
      }
    })();
    await expect(read).rejects.toThrow("no such column");
    expect(inUse()).toBe(0);
  });

  it(
    "fails with the database's error on the page that breaks, " +
      "after the rows before it, and closes that connection",
    async () => {
      const before = poolOf(t.db).totalCount;
      const seen: string[] = [];
      const read = (async () => {
        for await (const batch of streamKeysetCells(t.db, probe({ failAfter: "40" })(20), {
          keyIndex: 0,
          pageSize: 20,
          batchRows: 5,
        })) {
          for (const cells of batch) seen.push(cells[0] as string);
        }
      })();
      await expect(read).rejects.toThrow(/invalid input syntax for type integer/);
      expect(seen).toEqual(oneTo(40));
      expect(inUse()).toBe(0);
      expect(poolOf(t.db).totalCount).toBeLessThanOrEqual(before);
    },
  );
});
