import "server-only";
import PgBoss from "pg-boss";
import type { z } from "zod";
import { requireEnv } from "@/lib/env";
import { log } from "@/lib/log";

/**
 * Background work runs on pg-boss, a queue kept in the same PostgreSQL (schema `pgboss`): a job survives a crash
 * of the process that queued it and is retried by whichever process works the queue next.
 *
 * A job is a small definition (name, zod payload, retry and expiry limits) plus a handler in its own file
 * (lib/jobs/registry.ts pairs them). Handlers are idempotent: every job may run twice.
 */
export type JobDefinition<S extends z.ZodType> = {
  name: string;
  payload: S;
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInMinutes?: number;
  /** Jobs with the same key never run at the same time (and a second one is not queued while one waits). */
  singletonKey?: (payload: z.output<S>) => string;
};

export function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  return definition;
}

type Holder = { boss?: Promise<PgBoss>; queues: Set<string> };
const holder = globalThis as unknown as { __payoutDeskBoss?: Holder };
const state: Holder = (holder.__payoutDeskBoss ??= { queues: new Set() });

/** The process's queue client. Queuing works without workers; workers are started by lib/jobs/worker.ts. */
export function getBoss(connectionString = requireEnv("DATABASE_URL")): Promise<PgBoss> {
  state.boss ??= (async () => {
    const boss = new PgBoss({ connectionString, schema: "pgboss", application_name: "payout-desk-jobs", max: 4 });
    boss.on("error", (error) => log.error("job queue error", { error }));
    await boss.start();
    return boss;
  })();
  return state.boss;
}

export async function ensureQueue(boss: PgBoss, definition: JobDefinition<z.ZodType>): Promise<void> {
  if (state.queues.has(definition.name)) return;
  await boss.createQueue(definition.name, {
    name: definition.name,
    retryLimit: definition.retryLimit ?? 5,
    retryDelay: definition.retryDelaySeconds ?? 10,
    retryBackoff: true,
    expireInSeconds: (definition.expireInMinutes ?? 30) * 60,
  });
  state.queues.add(definition.name);
}

/** Queues a job; returns its id, or null when a job with the same singleton key is already waiting. */
export async function enqueue<S extends z.ZodType>(
  definition: JobDefinition<S>,
  payload: z.input<S>,
  options: { startAfterSeconds?: number } = {},
): Promise<string | null> {
  const data = definition.payload.parse(payload) as object;
  const boss = await getBoss();
  await ensureQueue(boss, definition as JobDefinition<z.ZodType>);
  return boss.send(definition.name, data, {
    singletonKey: definition.singletonKey?.(data as z.output<S>),
    startAfter: options.startAfterSeconds,
  });
}

export async function stopBoss(): Promise<void> {
  const pending = state.boss;
  state.boss = undefined;
  state.queues.clear();
  if (pending) await (await pending).stop({ graceful: true, wait: true, timeout: 10_000 });
}
