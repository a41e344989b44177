import "server-only";
import type { Db } from "@/db";
import { isScheduledPullClaimed, listGameAutomations, recordScheduledPull } from "@/db/queries/webhooks";
import { log } from "@/lib/log";
import { formatWindow } from "@/lib/time";
import { duePulls } from "./schedule";
import { snapshotLink, type SnapshotLink } from "./snapshot-link";

export type QueuedPull = { gameId: string; kind: string; periodKey: string; pullId: string };

/**
 * Queues every scheduled pull that is due and not queued yet. A pull is recorded (game, kind, period) only once it
 * is queued, so a run that fails before is made up by the next run (hourly); two runs at once ask for the same window
 * and the snapshot module hands both the one pull under way.
 */
export async function scheduleSnapshotPulls(
  db: Db,
  options: { nowMs?: number; link?: SnapshotLink } = {},
): Promise<QueuedPull[]> {
  const nowMs = options.nowMs ?? Date.now();
  const link = options.link ?? snapshotLink;
  const queued: QueuedPull[] = [];
  for (const { gameId, automation } of await listGameAutomations(db)) {
    for (const due of duePulls(nowMs, automation)) {
      const key = { gameId, kind: due.kind, periodKey: due.periodKey };
      if (await isScheduledPullClaimed(db, key)) continue;
      try {
        const { pullId, readsFromNow } = await link.requestPull(db, { gameId, window: due.window, via: "schedule" });
        // A pull already reading began before this one was due (a month's close read before midnight): the next run
        // asks again once it has ended.
        if (!readsFromNow) continue;
        const recorded = await recordScheduledPull(db, { ...key, window: due.window, pullId });
        if (!recorded) continue;
        log.info("scheduled pull queued", {
          game: gameId,
          kind: due.kind,
          window: formatWindow(due.window),
          pull: pullId,
        });
        queued.push({ ...key, pullId });
      } catch (error) {
        // One game's problem (no secret, removed meanwhile) must not hold up the others; the next run tries again.
        log.warn("scheduled pull not queued", {
          game: gameId,
          kind: due.kind,
          window: formatWindow(due.window),
          error,
        });
      }
    }
  }
  return queued;
}
