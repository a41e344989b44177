import "server-only";
import type PgBoss from "pg-boss";
import { getDb } from "@/db";
import { claimScheduledRun, pruneScheduledRuns, queueExecutor, setScheduledRunJob } from "@/db/queries/scheduled-runs";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import type { z } from "zod";
import type { JobDefinition, QueueSettings } from "./queue";
import { periodStartMs, type SchedulePeriod, schedulePeriod } from "./schedule-period";

/** How long a period's row is kept after the period started. */
const KEEP_MS = 7 * 24 * 3600_000;
/** A period begun at most this long (and a fifth of it) before a process starts is queued by it, if by none. */
const STARTING_GRACE_MS = 5 * 60_000;

type Scheduled = { name: string; period: SchedulePeriod; payload: object; singletonKey?: string };

/**
 * Queues each scheduled job once per period, however many processes run workers: every process looks once a second
 * (or five times a period, when periods are shorter) whether a period began, and the one whose claim of the period
 * lands in `scheduled_run` queues its run in the same transaction. A period no process saw begin (all were down) is
 * not made up, unless it began moments before a process started: the next one runs. Returns the stop, which waits for
 * a look under way and looks once more, so that a period that began while this process ran is queued by it or by one
 * still running.
 */
export async function startScheduler(
  boss: PgBoss,
  jobs: (QueueSettings & Pick<JobDefinition<z.ZodType>, "singletonKey">)[],
  options: { periodSeconds?: number; startingGraceMs?: number } = {},
): Promise<() => Promise<void>> {
  const override = options.periodSeconds ?? env().PAYOUT_DESK_SCHEDULE_SECONDS;
  const scheduled: Scheduled[] = [];
  for (const job of jobs) {
    if (!job.schedule) continue;
    scheduled.push({
      name: job.name,
      period: schedulePeriod(job.schedule.cron, override),
      payload: job.schedule.payload,
      // The key the queue's policy applies to, as for a run queued by hand: one run of it waits at a time.
      singletonKey: job.singletonKey?.(job.schedule.payload),
    });
    // A schedule an earlier version left with the queue's own cron would queue the job besides this one.
    await boss.unschedule(job.name);
  }
  if (scheduled.length === 0) return async () => undefined;
  // The period under way when the process starts is left to the processes already running, as a cron would leave
  // it, unless it began moments ago (a restart across a period's start: the one stopping looked last just before it,
  // so no process may have seen it begin); the claim keeps it to one run either way.
  const began = Date.now();
  const seen = new Map(
    scheduled.map((job) => {
      const start = periodStartMs(job.period, began);
      const grace = Math.min(options.startingGraceMs ?? STARTING_GRACE_MS, (job.period.seconds * 1000) / 5);
      const justBegun = began - start <= grace;
      return [job.name, justBegun ? null : start];
    }),
  );
  const shortest = Math.min(...scheduled.map((s) => s.period.seconds));
  let looking: Promise<void> | null = null;
  const look = async () => {
    for (const job of scheduled) {
      const start = periodStartMs(job.period, Date.now());
      if (seen.get(job.name) === start) continue;
      try {
        await queueScheduledRun(boss, job, start);
        seen.set(job.name, start);
      } catch (error) {
        log.warn("could not queue a scheduled job", { job: job.name, error });
      }
    }
  };
  const timer = setInterval(
    () => {
      looking ??= look().finally(() => (looking = null));
    },
    Math.min(1000, (shortest * 1000) / 5),
  );
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    await looking;
    // One last look: a period that began since the previous one is queued, even though a process started in it
    // (a rolling restart) leaves the period under way to those already running.
    await look();
  };
}

async function queueScheduledRun(boss: PgBoss, job: Scheduled, startMs: number): Promise<void> {
  const db = getDb();
  const key = { job: job.name, periodStart: new Date(startMs) };
  const jobId = await db.transaction().execute(async (trx) => {
    if (!(await claimScheduledRun(trx, key))) return undefined;
    // The queue's policy refuses a second waiting run (null): the waiting one runs in this period.
    const id = await boss.send(job.name, job.payload, {
      db: queueExecutor(trx),
      singletonKey: job.singletonKey,
    });
    await setScheduledRunJob(trx, { ...key, jobId: id });
    return id;
  });
  if (jobId === undefined) return;
  log.debug("scheduled job queued", { job: job.name, period: key.periodStart.toISOString(), id: jobId });
  await pruneScheduledRuns(db, { job: job.name, before: new Date(startMs - KEEP_MS) });
}
