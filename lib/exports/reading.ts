import "server-only";
import type { ControlledTransaction } from "kysely";
import { type Db, longReadingSlots } from "@/db";
import type { Database } from "@/db/types";

/** A file's reading from one snapshot of the database, and its end (commit once read, rollback when it failed). */
export type OneSnapshotReading = {
  reading: ControlledTransaction<Database>;
  end(how: "commit" | "rollback"): Promise<unknown>;
};

/**
 * Opens a read-only transaction at repeatable read for a file read in pages: what commits meanwhile (a payment, a
 * long import's audit lines) is in the file whole or not at all. The file's own audit entries are written outside it,
 * through another of the pool's connections: the readings under way at once are held to half the pool (see
 * longReadingSlots), so none holds the last connection while it waits for one more.
 */
export async function startOneSnapshotReading(db: Db): Promise<OneSnapshotReading> {
  const giveBack = await longReadingSlots(db).take();
  let reading: ControlledTransaction<Database>;
  try {
    reading = await db.startTransaction().setIsolationLevel("repeatable read").setAccessMode("read only").execute();
  } catch (error) {
    giveBack();
    throw error;
  }
  return { reading, end: (how) => reading[how]().execute().finally(giveBack) };
}
