import "server-only";
import type pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { type Db, poolOf } from "@/db";

/** How a streamed COPY ended: all of its output was handed on, or it was cut (see streamCopyOut). */
export type CopyOutEnd = { cut: boolean };

/**
 * Runs a `COPY … TO STDOUT` statement on a pooled connection and hands its output on as PostgreSQL writes it, in
 * pieces of at most `pieceBytes` (smaller ones are joined). The output is read as fast as it comes, whatever the
 * reader's pace, so the statement never waits on a slow reader while holding its connection: when more than
 * `maxBufferedBytes` wait for the reader, the statement is cut (its connection closed, which ends it in PostgreSQL,
 * rather than handed back mid-COPY), what waited is dropped, and the generator returns `{ cut: true }` once the
 * reader has taken everything before. The caller then starts again from where the reader is.
 */
export async function* streamCopyOut(
  db: Db,
  statement: string,
  options: { maxBufferedBytes: number; pieceBytes: number },
): AsyncGenerator<Buffer, CopyOutEnd, undefined> {
  const client = await poolOf(db).connect();
  const queue: Buffer[] = [];
  let queued = 0;
  let state: "running" | "ended" | "cut" = "running";
  let failure: Error | null = null;
  let released = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  // A connection whose COPY failed or was cut is closed rather than handed back.
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error);
  };
  const stream = (client as pg.PoolClient).query(copyTo(statement));
  stream.on("data", (chunk: Buffer) => {
    if (state !== "running") return;
    queue.push(chunk);
    queued += chunk.length;
    if (queued > options.maxBufferedBytes) {
      state = "cut";
      queue.length = 0;
      queued = 0;
      release(new Error("COPY cut: its reader is behind"));
    }
    signal();
  });
  stream.on("end", () => {
    if (state === "running") state = "ended";
    release();
    signal();
  });
  stream.on("error", (error: Error) => {
    if (state === "running") failure = error;
    release(error);
    signal();
  });
  try {
    for (;;) {
      if (queue.length > 0) {
        let take = 1;
        let bytes = (queue[0] as Buffer).length;
        while (take < queue.length && bytes + (queue[take] as Buffer).length <= options.pieceBytes)
          bytes += (queue[take++] as Buffer).length;
        const piece = take === 1 ? (queue[0] as Buffer) : Buffer.concat(queue.slice(0, take), bytes);
        queue.splice(0, take);
        queued -= bytes;
        yield piece;
        continue;
      }
      if (failure) throw failure;
      if (state !== "running") return { cut: state === "cut" };
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    // A reader that stops early ends the statement too.
    if (state === "running") state = "cut";
    release(new Error("COPY stopped by its reader"));
  }
}

/**
 * Runs a `COPY … FROM STDIN` statement on `connection` (a transaction's: transactionWithConnection) with `data` as its
 * data, written to the connection as it is. Resolves once PostgreSQL has taken every row; a row it refuses fails the
 * statement, and with it the transaction. The data goes in one piece: pg-copy-streams, when the connection is full,
 * keeps the pieces not yet written for when it drains, and after an error it writes them to the connection it has let
 * go (a TypeError thrown from a socket listener, which would end the process).
 */
export async function copyIn(connection: pg.PoolClient, statement: string, data: Buffer): Promise<void> {
  const stream = connection.query(copyFrom(statement));
  await new Promise<void>((resolve, reject) => {
    stream.on("error", reject);
    stream.on("finish", resolve);
    stream.end(data);
  });
}
