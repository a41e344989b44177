import "server-only";
import { type Db, getDb } from "@/db";
import { claimScheduledPull, listGameAutomations, setScheduledPullJob } from "@/db/queries/webhooks";
import type { JobHandler } from "@/lib/jobs/registry";
import { log } from "@/lib/log";
import { formatWindow } from "@/lib/time";
import type { scheduleSnapshotPullsJob } from "./jobs";
import { duePulls } from "./schedule";
import { snapshotLink, type SnapshotLink } from "./snapshot-link";

/**
 * Queues every scheduled pull that is due and not queued yet. Each (game, kind, period) is claimed in the same
 * transaction that queues its pull, so two runs (two processes, a retry) never queue one pull twice, and a run
 * missed while the server was down is made up by the next one.
 */
export async function scheduleSnapshotPulls(
  db: Db,
  options: { nowMs?: number; link?: SnapshotLink } = {},
): Promise<{ gameId: string; kind: string; periodKey: string; pullId: string | null }[]> {
  const nowMs = options.nowMs ?? Date.now();
  const link = options.link ?? snapshotLink;
  const queued: { gameId: string; kind: string; periodKey: string; pullId: string | null }[] = [];
  for (const { gameId, automation } of await listGameAutomations(db)) {
    for (const due of duePulls(nowMs, automation)) {
      const pullId = await db.transaction().execute(async (trx) => {
        const claimed = await claimScheduledPull(trx, {
          gameId,
          kind: due.kind,
          periodKey: due.periodKey,
          windowStart: new Date(due.window.startMs),
          windowEnd: new Date(due.window.endMs),
        });
        if (!claimed) return undefined;
        const id = await link.requestPull(trx, { gameId, window: due.window, reason: `scheduled ${due.kind.replace("_", " ")}` });
        await setScheduledPullJob(trx, { gameId, kind: due.kind, periodKey: due.periodKey, jobId: id });
        return id;
      });
      if (pullId === undefined) continue;
      log.info("scheduled pull queued", { game: gameId, kind: due.kind, window: formatWindow(due.window) });
      queued.push({ gameId, kind: due.kind, periodKey: due.periodKey, pullId });
    }
  }
  return queued;
}

export const handleScheduleSnapshotPulls: JobHandler<typeof scheduleSnapshotPullsJob.payload> = async () => {
  await scheduleSnapshotPulls(getDb());
};
