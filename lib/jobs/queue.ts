import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type PgBoss from "pg-boss";
import type { z } from "zod";
import type { DbOrTrx } from "@/db";
import { queueExecutor } from "@/db/queries/scheduled-runs";
import { requireEnv } from "@/lib/env";
import { log } from "@/lib/log";

/**
 * Background work runs on pg-boss, a queue kept in the same PostgreSQL (schema `pgboss`): a job survives a crash
 * of the process that queued it and is retried by whichever process works the queue next.
 *
 * A job is a small definition (name, zod payload, retry and expiry limits) plus a handler in its own file
 * (lib/jobs/registry.ts pairs them). Handlers are idempotent: every job may run twice.
 */
/**
 * What the queue promises about jobs with the same key (pg-boss 10 queue policies; a key is only honoured by them, a
 * `standard` queue ignores it):
 * - `short`: at most one job per key waiting; a second enqueue while one waits is refused (returns null). One may be
 *   queued while another runs (a worker that died is replaced at once; the handler keeps runs apart if it must).
 * - `stately`: at most one waiting and one running per key: never two at the same time, never a second in line.
 * A queue without a policy is `standard`: every enqueue queues a job.
 */
export type QueuePolicy = "standard" | "short" | "stately";

/** What a queue is created with: the part of a definition that does not depend on the payload. */
export type QueueSettings = {
  name: string;
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInMinutes?: number;
  policy?: QueuePolicy;
  /** How many of these run at once in one worker process (default 1). */
  concurrency?: number;
  /**
   * Cron (UTC) for jobs that queue themselves on a schedule, with the payload each scheduled job gets: the forms
   * lib/jobs/schedule-period.ts reads, queued once per period by lib/jobs/scheduler.ts.
   */
  schedule?: { cron: string; payload: object };
  /**
   * Where a job goes once it has failed for good: its last attempt threw, ran past its expiry (its worker died) or was
   * handed back at a shutdown. That queue's handler gets the same payload and records what the failure leaves, since
   * a job that expires never reaches its own handler again.
   */
  deadLetter?: QueueSettings;
};

export type JobDefinition<S extends z.ZodType> = QueueSettings & {
  payload: S;
  /** The key the policy applies to (without one, all jobs of the queue share one key). Needs a policy. */
  singletonKey?(payload: z.output<S>): string;
};

/** The logic of a job, in `<name>.handler.ts` next to its definition `<name>.ts`; lib/jobs/registry.ts pairs them. */
export type JobMeta = {
  jobId: string;
  attempt: number;
  /**
   * Aborted, with a WorkerStoppedError, when the process's stop has waited its grace period and the job still runs:
   * its job is handed back by then, and a handler that can stop part-way (a pull) leaves its work for the retry.
   */
  signal?: AbortSignal;
};

/** Why a job's signal was aborted: its process is stopping and the grace period the job had is over. */
export class WorkerStoppedError extends Error {
  readonly code = "WORKER_STOPPED";
  constructor() {
    super("The worker running this job stopped; the job was handed back for another worker to run.");
  }
}
export type JobHandler<S extends z.ZodType> = (payload: z.output<S>, meta: JobMeta) => Promise<void>;

export function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  if (definition.singletonKey && (definition.policy ?? "standard") === "standard") {
    throw new Error(`job ${definition.name}: a singleton key does nothing on a standard queue; give it a policy`);
  }
  return definition;
}

/**
 * The connection pg-boss works through, kept here rather than by pg-boss, so that a stop can wait for every statement
 * pg-boss has sent: a fetch sent just before the stop hands its job to a handler after pg-boss's own stop has
 * returned, and that job is completed (or handed back) over this connection.
 */
class QueueConnection implements PgBoss.Db {
  private readonly pool: pg.Pool;
  private sending = 0;
  private closed = false;

  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 4, application_name: "payout-desk-jobs" });
    this.pool.on("error", (error) => log.error("job queue connection error", { error }));
  }

  async executeSql(text: string, values?: unknown[]): Promise<{ rows: never[] }> {
    // pg-boss writes a job's outcome without waiting for the answer: one that ends after the stop's time is up (a
    // handler still running then) is not sent, as pg-boss's own connection does, rather than rejected where nothing
    // would hear it. The job was handed back or expires, and is retried.
    if (this.closed) return undefined as unknown as { rows: never[] };
    this.sending++;
    try {
      return await this.pool.query(text, values);
    } finally {
      this.sending--;
    }
  }

  /** True when no statement is on its way. */
  idle(): boolean {
    return this.sending === 0;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.pool.end();
  }
}

type Holder = {
  boss?: Promise<PgBoss>;
  stopping?: Promise<void>;
  queues: Set<string>;
  connections: WeakMap<PgBoss, QueueConnection>;
};
const holder = globalThis as unknown as { __payoutDeskBoss?: Holder };
holder.__payoutDeskBoss ??= { queues: new Set(), connections: new WeakMap() };
holder.__payoutDeskBoss.connections ??= new WeakMap();
const state: Holder = holder.__payoutDeskBoss;

/** The process's queue client. Queuing works without workers; workers are started by lib/jobs/worker.ts. */
export function getBoss(connectionString = requireEnv("DATABASE_URL")): Promise<PgBoss> {
  if (state.boss) return state.boss;
  const starting = (async () => {
    // Loaded by the first process's call that queues or works, not by every program that could (a command's start).
    const { default: Boss } = await import("pg-boss");
    const connection = new QueueConnection(connectionString);
    const boss = new Boss({
      db: connection,
      schema: "pgboss",
      // Scheduled jobs are queued by lib/jobs/scheduler.ts, once per period across the fleet. pg-boss's own cron is
      // off: a schedule an earlier release left in its table (or brings back while a rolling upgrade replaces it)
      // queues nothing from this release's processes.
      schedule: false,
    });
    boss.on("error", (error) => log.error("job queue error", { error }));
    try {
      await boss.start();
    } catch (error) {
      // Its pool is closed, whatever it still holds, before the next caller starts another client (pg-boss's own
      // stop does nothing for a client that never started).
      await connection.close().catch(() => {});
      throw error;
    }
    state.connections.set(boss, connection);
    return boss;
  })();
  state.boss = starting;
  // A start that failed (the database away for a moment) is tried again by the next caller, not kept as the answer.
  starting.catch(() => {
    if (state.boss === starting) state.boss = undefined;
  });
  return starting;
}

export async function ensureQueue(boss: PgBoss, definition: QueueSettings): Promise<void> {
  if (state.queues.has(definition.name)) return;
  // The queue a failed job moves to exists first: pg-boss refers to it by name.
  if (definition.deadLetter) await ensureQueue(boss, definition.deadLetter);
  const options = {
    name: definition.name,
    policy: definition.policy ?? "standard",
    retryLimit: definition.retryLimit ?? 5,
    retryDelay: definition.retryDelaySeconds ?? 10,
    retryBackoff: true,
    expireInSeconds: (definition.expireInMinutes ?? 30) * 60,
    ...(definition.deadLetter ? { deadLetter: definition.deadLetter.name } : {}),
  };
  // createQueue leaves an existing queue as it is: a queue created by an earlier version gets the definition's
  // policy, retries, expiry and dead letter here (a job takes its queue's settings when it is inserted).
  await boss.createQueue(definition.name, options);
  const existing = await boss.getQueue(definition.name);
  const differs =
    existing &&
    (existing.policy !== options.policy ||
      existing.retryLimit !== options.retryLimit ||
      existing.retryDelay !== options.retryDelay ||
      existing.retryBackoff !== options.retryBackoff ||
      existing.expireInSeconds !== options.expireInSeconds ||
      (existing.deadLetter ?? undefined) !== options.deadLetter);
  if (differs) await boss.updateQueue(definition.name, options);
  state.queues.add(definition.name);
}

/** Queues a job; returns its id, or null when the queue's policy refuses it (a job with the same key is waiting). */
export async function enqueue<S extends z.ZodType>(
  definition: JobDefinition<S>,
  payload: z.input<S>,
  options: { startAfterSeconds?: number } = {},
): Promise<string | null> {
  const data: z.output<S> = definition.payload.parse(payload);
  const boss = await getBoss();
  await ensureQueue(boss, definition);
  return boss.send(definition.name, data as object, {
    singletonKey: definition.singletonKey?.(data),
    startAfter: options.startAfterSeconds,
  });
}

/**
 * Whether the job is waiting to run: queued (maybe to start later) or waiting out its retry's delay after a failed
 * run. Not a running job: one whose worker died stays "active" until it expires.
 */
export async function jobWaiting<S extends z.ZodType>(definition: JobDefinition<S>, jobId: string): Promise<boolean> {
  const boss = await getBoss();
  const job = await boss.getJobById(definition.name, jobId);
  return job !== null && (job.state === "created" || job.state === "retry");
}

/**
 * Queues jobs of one standard queue in the caller's transaction, all in one statement: they exist once it commits
 * and not at all if it rolls back, so no row the transaction writes is left without its job, and no job runs ahead of
 * its rows.
 */
export async function enqueueInTransaction<S extends z.ZodType>(
  trx: DbOrTrx,
  definition: JobDefinition<S>,
  payloads: readonly z.input<S>[],
): Promise<void> {
  if ((definition.policy ?? "standard") !== "standard")
    throw new Error(`job ${definition.name}: only jobs of a standard queue are queued in a transaction`);
  if (payloads.length === 0) return;
  const boss = await getBoss();
  await ensureQueue(boss, definition);
  const jobs = payloads.map((payload) => ({
    name: definition.name,
    data: definition.payload.parse(payload) as object,
  }));
  await boss.insert(jobs, { db: queueExecutor(trx) });
}

/**
 * Stops the queue client: no more jobs are taken, running ones get `timeoutMs` to finish before they are handed
 * back. `running` counts the handlers still at work (lib/jobs/worker.ts): a job fetched just as the stop began reaches
 * its handler after pg-boss has stopped, and the connection stays open, within the same time, until it is done. Until
 * then the stopping client is the process's: a job a running handler queues goes through it (for another worker to
 * take) rather than through a second client the stop would leave open. A stop asked for during a stop waits for it.
 * `handBack` names the jobs whose handlers still run when the time is up: pg-boss hands back those it knew were
 * running when its stop began; one fetched just then, still active, is handed back here, before the connection closes
 * (else it would stay active, taken by no one, until it expired).
 */
export function stopBoss(options: StopOptions = {}): Promise<void> {
  state.stopping ??= stopClient(options).finally(() => {
    state.stopping = undefined;
  });
  return state.stopping;
}

type StopOptions = {
  timeoutMs?: number;
  running?: () => number;
  handBack?: () => readonly { name: string; id: string }[];
};

/** The jobs still running at a stop's end that are still active (pg-boss did not hand them back): failed, to retry. */
async function handBackActive(boss: PgBoss, jobs: readonly { name: string; id: string }[]): Promise<void> {
  for (const job of jobs) {
    try {
      const found = await boss.getJobById(job.name, job.id);
      if (found?.state === "active") await boss.fail(job.name, job.id, { message: "handed back: the worker stopped" });
    } catch (error) {
      log.warn("job not handed back", { job: job.name, id: job.id, error });
    }
  }
}

async function stopClient(options: StopOptions): Promise<void> {
  const pending = state.boss;
  if (!pending) return;
  const forget = () => {
    if (state.boss === pending) state.boss = undefined;
    state.queues.clear();
  };
  // A client that never started has nothing to stop: its failure was the caller's to report when it asked for it.
  const boss = await pending.catch(() => null);
  if (!boss) return forget();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const until = Date.now() + timeoutMs;
  try {
    await boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
    const connection = state.connections.get(boss);
    while (connection && Date.now() < until && !(connection.idle() && (options.running?.() ?? 0) === 0))
      await sleep(25);
    await handBackActive(boss, options.handBack?.() ?? []);
  } finally {
    // From here a caller starts a new client.
    forget();
    await state.connections.get(boss)?.close();
  }
}
