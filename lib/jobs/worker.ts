import "server-only";
import { getDb } from "@/db";
import { noteScheduledRun } from "@/db/queries/scheduled-runs";
import { log } from "@/lib/log";
import { flushWebhookRefusals } from "@/lib/webhooks/refusal-counts";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureQueue, getBoss, stopBoss, WorkerStoppedError } from "./queue";
import { JOBS } from "./registry";
import { startScheduler } from "./scheduler";

/**
 * Starts the workers for every registered job in this process (the app server starts them through
 * instrumentation.ts, `desk worker` in a process of their own; tests start them directly). Calling it twice does
 * nothing the second time.
 */
export type WorkerCounts = { jobsFinished: number; jobsFailed: number; running: number };

type State = {
  started?: Promise<void>;
  stopScheduler?: () => Promise<void>;
  /** Aborted when a stop's grace period is over with jobs still running (JobMeta.signal). */
  stopped?: AbortController;
  counts: WorkerCounts;
  /** The jobs whose handlers run now: id → queue. */
  runningJobs: Map<string, string>;
};
const holder = globalThis as unknown as { __payoutDeskWorkers?: State };
holder.__payoutDeskWorkers ??= { counts: { jobsFinished: 0, jobsFailed: 0, running: 0 }, runningJobs: new Map() };
holder.__payoutDeskWorkers.runningJobs ??= new Map();
const state: State = holder.__payoutDeskWorkers;

export function startWorkers(): Promise<void> {
  state.started ??= (async () => {
    const stopped = new AbortController();
    state.stopped = stopped;
    const boss = await getBoss();
    for (const job of JOBS) {
      await ensureQueue(boss, job.definition);
      const handler = await job.handler();
      // pg-boss 10 runs one handler call per worker at a time; concurrency is that many workers.
      for (let worker = 0; worker < (job.definition.concurrency ?? 1); worker++) {
        await boss.work(
          job.definition.name,
          { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true },
          async ([entry]) => {
            if (!entry) return;
            const startedAt = Date.now();
            const attempt = entry.retryCount + 1;
            state.counts.running++;
            state.runningJobs.set(entry.id, job.definition.name);
            // A scheduled run notes on its period's row that it ran (a retry counts again) and finished.
            const run = job.schedule ? { job: job.definition.name, jobId: entry.id } : null;
            try {
              if (run) await noteScheduledRun(getDb(), { ...run, event: "started" });
              await handler(entry.data, { jobId: entry.id, attempt, signal: stopped.signal });
              if (run) await noteScheduledRun(getDb(), { ...run, event: "finished" });
              state.counts.jobsFinished++;
              log.info("job done", { job: job.definition.name, id: entry.id, ms: Date.now() - startedAt });
            } catch (error) {
              // Ended because told to stop (JobMeta.signal): handed back, not failed. Any other end is its own.
              if (stopped.signal.aborted && error === stopped.signal.reason) {
                log.info("job handed back", { job: job.definition.name, id: entry.id, attempt });
                throw jobFailure(error);
              }
              state.counts.jobsFailed++;
              log.warn("job failed", { job: job.definition.name, id: entry.id, attempt, error });
              throw jobFailure(error);
            } finally {
              state.counts.running--;
              state.runningJobs.delete(entry.id);
            }
          },
        );
      }
    }
    state.stopScheduler = await startScheduler(
      boss,
      JOBS.map((job) => job.definition),
    );
    log.info("workers started", { jobs: JOBS.map((j) => j.definition.name) });
  })();
  return state.started;
}

/**
 * What pg-boss keeps of a failed job (in `pgboss.job.output`, with every field of the error thrown): the message
 * alone. An error may carry what caused it in fields of its own (a mail library's "Invalid URL" carries the whole
 * SMTP_URL, its password with it), and the job table is no log: nothing redacts it.
 */
export function jobFailure(error: unknown): Error {
  return new Error(error instanceof Error ? error.message : String(error));
}

/** Jobs this process has run since it started. */
export function workerCounts(): WorkerCounts {
  return { ...state.counts };
}

/**
 * The end of the grace period kept for jobs still running to give up once told to (JobMeta.signal): half of it,
 * at most 5 seconds. The stop as a whole keeps within the grace period.
 */
const GIVE_UP_MS = 5_000;

/**
 * Stops taking jobs (the schedule is still looked at meanwhile) and waits up to `timeoutMs` for the running ones, a job
 * fetched just as the stop began among them; any still running then are handed back to the queue (marked failed, so
 * they are retried by another worker: pg-boss's own for those it knew of, lib/jobs/queue.ts for one fetched as its stop
 * began). Jobs still running then are told to stop (their signal is aborted) and get a few seconds more to leave their
 * work as another worker can take it up: a pull that waits on the service ends its attempt rather than keeping the
 * process until the service answers. `running` in the counts returned: the jobs still running when the grace period
 * ended.
 */
export async function stopWorkers(options: { timeoutMs?: number } = {}): Promise<WorkerCounts> {
  // The workers this stop is for: a start after it has begun gets a controller of its own.
  const stopped = state.stopped;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const giveUpMs = Math.min(GIVE_UP_MS, Math.floor(timeoutMs / 2));
  const started = state.started;
  state.started = undefined;
  if (started) await started.catch(() => undefined);
  const stopScheduler = state.stopScheduler;
  state.stopScheduler = undefined;
  // The schedule is looked at until the drain is over, and once more after it: a period that begins while the running
  // jobs finish (a month's start during a rolling restart) is queued for the workers still running, not left to a
  // process that may start too late to take it up.
  try {
    await stopBoss({
      timeoutMs: timeoutMs - giveUpMs,
      running: () => state.counts.running,
      handBack: () => [...state.runningJobs].map(([id, name]) => ({ id, name })),
    });
  } finally {
    await stopScheduler?.();
  }
  const counts = workerCounts();
  if (counts.running > 0) {
    stopped?.abort(new WorkerStoppedError());
    const until = Date.now() + giveUpMs;
    while (state.counts.running > 0 && Date.now() < until) await sleep(25);
  }
  if (state.stopped === stopped) state.stopped = undefined;
  return { ...workerCounts(), running: counts.running };
}

/**
 * What a process that runs workers does when asked to stop (SIGTERM/SIGINT): the workers stop as above, then the
 * webhook refusal counts gathered in memory are written.
 */
export async function shutDownWorkers(options: { timeoutMs?: number } = {}): Promise<WorkerCounts> {
  const counts = await stopWorkers(options);
  await flushWebhookRefusals();
  return counts;
}
