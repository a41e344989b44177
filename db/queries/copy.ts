import "server-only";
import { to as copyTo } from "pg-copy-streams";
import { type Db, poolOf } from "@/db";

/**
 * Runs a `COPY … TO STDOUT` statement on a pooled connection and returns its output whole: callers keep each
 * statement to a few megabytes, so that the connection goes back to the pool as fast as PostgreSQL writes.
 */
export async function readCopyOut(db: Db, statement: string): Promise<Buffer> {
  const client = await poolOf(db).connect();
  let failure: Error | undefined;
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of client.query(copyTo(statement))) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // A connection whose COPY failed is closed rather than handed back.
    client.release(failure);
  }
}
