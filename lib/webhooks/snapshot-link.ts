import "server-only";
import type { Db } from "@/db";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { readingBounds } from "@/lib/snapshots/pull-common";
import { markWindowStale } from "@/lib/snapshots/stale";
import type { TimeWindow } from "@/lib/time";

/**
 * The one place the webhook area reaches into window snapshots (lib/snapshots): marking the snapshots of a window
 * stale when the service reports a change inside it, and queuing a pull of a window. Jobs take a SnapshotLink so that
 * tests can watch what would be done.
 */
export type SnapshotLink = {
  /**
   * Marks stale the snapshots whose window holds `instant`; returns those windows and those of pulls reading now (one
   * entry per window), whose first version may have begun reading before the change.
   */
  markStale(
    db: Db,
    input: { gameId: string; instant: Date; reason: string; detail: Record<string, unknown> },
  ): Promise<TimeWindow[]>;
  /**
   * Queues a pull of the window, or finds the one already queued for it; returns the pull's id, and whether it reads
   * the window from now on (false: it was already reading, and may miss what changed just before). Called outside any
   * transaction: the pull's job may start at once and must find its row committed.
   */
  requestPull(
    db: Db,
    input: { gameId: string; window: TimeWindow; via: "webhook" | "schedule" },
  ): Promise<RequestedPull>;
};

export type RequestedPull = { pullId: string; readsFromNow: boolean };

export const snapshotLink: SnapshotLink = {
  markStale: (db, input) => markWindowStale(db, input.gameId, input.instant, input.reason, input.detail),
  requestPull: async (db, input) => {
    const asked = await requestSnapshot(db, {
      gameId: input.gameId,
      window: input.window,
      requestedBy: null,
      via: input.via,
    });
    return { pullId: asked.pullId, readsFromNow: !asked.readingAlready };
  },
};

/**
 * Whether the pull just asked for reads a change made at `instantMs` (or, past the window's end, its last moment). One
 * found already reading may have begun before it. A new one reads a window that has ended whole, but an open one only
 * up to a margin before it starts (readingBounds, lib/snapshots/pull-common.ts), so a change within that margin of now
 * is left out of it. Either way the event keeps repullDue, and the sweep asks again. `nowMs` is the database's clock,
 * which a pull's attempt starts on (lib/snapshots/pull-run.ts).
 */
export function pullServesChange(
  asked: RequestedPull,
  window: TimeWindow,
  instantMs: number | null,
  nowMs: number,
): boolean {
  if (!asked.readsFromNow) return false;
  // A change the window holds lies within it: an event marking a window besides its own time's (a refund placed by
  // its event's creation just after the window's end, lib/webhooks/event-time.ts) is read by a pull of all of it.
  return instantMs === null || readingBounds(window, nowMs).read.endMs > Math.min(instantMs, window.endMs - 1);
}
