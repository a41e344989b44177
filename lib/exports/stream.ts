import "server-only";
import type { Compilable } from "kysely";
import pg from "pg";
import { type Db, poolOf } from "@/db";
import { AS_TEXT, statementName } from "./sql";

export type Cells = (string | null)[];

/**
 * The rows of a keyset-paged read ("after the last key seen", never OFFSET) as arrays of text cells, streamed:
 * each page is one query whose rows are handed on in small batches as they arrive, so most rows live a few
 * milliseconds. The next page's query starts as soon as the previous one has ended if at most a page of rows is
 * still waiting for the reader, and otherwise only once the reader has caught up: however slow the reader, at most
 * about two pages are held. A page borrows a pooled connection for its query alone, so a slow download holds none
 * while it waits.
 */
export async function* streamKeysetCells(
  db: Db,
  pageQuery: (after: string | null) => Compilable<unknown>,
  options: { keyIndex: number; pageSize: number; batchRows?: number },
): AsyncGenerator<Cells[], void, undefined> {
  const batchRows = options.batchRows ?? 250;
  const pool = poolOf(db);
  const queue: Cells[][] = [];
  let queuedRows = 0;
  let batch: Cells[] = [];
  let failure: Error | null = null;
  let running = false;
  /** The key to read after, once a page has ended full and the next one has not started yet. */
  let nextAfter: string | undefined;
  let finished = false;
  let stopped = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  const waitForRows = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  const fail = (error: unknown) => {
    failure ??= error instanceof Error ? error : new Error(String(error));
    running = false;
    finished = true;
    signal();
  };

  const runPage = async (after: string | null): Promise<void> => {
    running = true;
    nextAfter = undefined;
    let client: pg.PoolClient | null = null;
    try {
      const { sql: text, parameters } = pageQuery(after).compile();
      const config: pg.QueryArrayConfig = {
        name: statementName(text),
        text,
        values: parameters as unknown[],
        rowMode: "array",
        types: AS_TEXT,
      };
      // pg's Query takes the array row mode at run time; its typings only list it on client.query's overloads.
      const query = new pg.Query(config as pg.QueryConfig);
      let count = 0;
      let last: string | null = null;
      query.on("row", (row: Cells) => {
        count++;
        last = row[options.keyIndex] ?? null;
        batch.push(row);
        if (batch.length >= batchRows) {
          queue.push(batch);
          queuedRows += batch.length;
          batch = [];
          signal();
        }
      });
      const ended = new Promise<void>((resolve, reject) => {
        // pg emits "error" or "end", never both.
        query.once("error", reject);
        query.once("end", () => resolve());
      });
      client = await pool.connect();
      client.query(query);
      await ended;
      client.release();
      client = null;
      if (batch.length > 0) {
        queue.push(batch);
        queuedRows += batch.length;
        batch = [];
      }
      running = false;
      if (count < options.pageSize || last === null || stopped) finished = true;
      else if (queuedRows <= options.pageSize) void runPage(last);
      else nextAfter = last;
      signal();
    } catch (error) {
      // A connection whose query failed is closed rather than handed back.
      client?.release(error instanceof Error ? error : true);
      fail(error);
    }
  };

  try {
    void runPage(null);
    while (true) {
      const next = queue.shift();
      if (next) {
        queuedRows -= next.length;
        // The reader has caught up far enough: the page that was held back starts now.
        if (nextAfter !== undefined && !running && queuedRows <= options.pageSize) void runPage(nextAfter);
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (finished && !running) return;
      if (nextAfter !== undefined && !running) {
        void runPage(nextAfter);
        continue;
      }
      await waitForRows();
    }
  } finally {
    stopped = true;
    // A page still streaming when the reader stops is let run out (a page at most), so that its connection goes
    // back to the pool idle.
    while (running) await waitForRows();
    queue.length = 0;
  }
}
