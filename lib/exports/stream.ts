import "server-only";
import type { Compilable } from "kysely";
import pg from "pg";
import { type Db, poolOf } from "@/db";
import { AS_TEXT, statementName } from "./sql";

export type Cells = (string | null)[];

/**
 * The rows of a keyset-paged read ("after the last key seen", never OFFSET) as arrays of text cells, streamed:
 * each page is one query whose rows are handed on in small batches as they arrive, and the next page's query
 * starts as soon as the previous one has ended, while its rows are still being written. Rows are not collected
 * into pages, so most live a few milliseconds and at most about two pages are ever held, however slow the reader.
 * One connection serves the whole read and goes back to the pool when the reader stops, early or not.
 */
export async function* streamKeysetCells(
  db: Db,
  pageQuery: (after: string | null) => Compilable<unknown>,
  options: { keyIndex: number; pageSize: number; batchRows?: number },
): AsyncGenerator<Cells[], void, undefined> {
  const batchRows = options.batchRows ?? 250;
  const client = await poolOf(db).connect();
  const queue: Cells[][] = [];
  let batch: Cells[] = [];
  let failure: Error | null = null;
  let running = false;
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

  const runPage = (after: string | null): void => {
    running = true;
    let count = 0;
    let last: string | null = null;
    const { sql: text, parameters } = pageQuery(after).compile();
    const config: pg.QueryArrayConfig = { name: statementName(text), text, values: parameters as unknown[], rowMode: "array", types: AS_TEXT };
    // pg's Query takes the array row mode at run time; its typings only list it on client.query's overloads.
    const query = new pg.Query(config as pg.QueryConfig);
    query.on("row", (row: Cells) => {
      count++;
      last = row[options.keyIndex] ?? null;
      batch.push(row);
      if (batch.length >= batchRows) {
        queue.push(batch);
        batch = [];
        signal();
      }
    });
    // pg emits "error" or "end", never both.
    query.on("error", (error: Error) => {
      failure ??= error;
      running = false;
      finished = true;
      signal();
    });
    query.on("end", () => {
      running = false;
      if (batch.length > 0) {
        queue.push(batch);
        batch = [];
      }
      if (count >= options.pageSize && last !== null && !stopped) runPage(last);
      else finished = true;
      signal();
    });
    client.query(query);
  };

  try {
    runPage(null);
    while (true) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (finished && !running) return;
      await waitForRows();
    }
  } finally {
    stopped = true;
    // A page still streaming when the reader stops is let run out (a page at most), so that the connection goes
    // back to the pool idle; one that failed is closed instead of reused.
    while (running) await waitForRows();
    queue.length = 0;
    client.release(failure ?? undefined);
  }
}
