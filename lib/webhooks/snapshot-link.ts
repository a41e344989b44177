import "server-only";
import type { Db } from "@/db";
import type { TimeWindow } from "@/lib/time";

/**
 * The one place the webhook area reaches into window snapshots (lib/snapshots): marking the snapshots of a window
 * stale when the service reports a change inside it, and queuing a pull of a window. Jobs take a SnapshotLink so that
 * tests can watch what would be done.
 */
export type SnapshotLink = {
  /** Marks stale every snapshot whose window holds `instant`; returns those windows (one entry per window). */
  markStale(db: Db, input: { gameId: string; instant: Date; reason: string; detail: Record<string, unknown> }): Promise<TimeWindow[]>;
  /** Queues a pull of the window; returns the pull's id (null when one for the same window is already waiting). */
  requestPull(db: Db, input: { gameId: string; window: TimeWindow; reason: string }): Promise<string | null>;
};

export const snapshotLink: SnapshotLink = {
  async markStale() {
    throw new Error("window snapshots are not available in this build");
  },
  async requestPull() {
    throw new Error("window snapshots are not available in this build");
  },
};
