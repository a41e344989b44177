import { afterAll, vi } from "vitest";
import type { Db } from "../../db";

/**
 * Set up before each test file of the "shared" project (vitest.config.ts), whose files run one after another in the
 * same worker process: each file starts as it would in a process of its own, and leaves nothing running for the next.
 *
 * - The app's modules are evaluated afresh (packages in node_modules are not: they hold no state of the app's).
 * - What the app keeps on globalThis for the process (the database pool, the job queue client, the sign-in handler,
 *   the pacers, caches) is dropped, and what the file started of it is stopped when the file ends.
 * - The environment is the worker's as it started, whatever the last file set in it.
 * - Listeners the file added for the process's stop signals and exit are removed when it ends.
 */

const PROCESS_EVENTS = ["SIGINT", "SIGTERM", "exit", "beforeExit"] as const;
const HELD_PREFIX = "__payoutDesk";
const START_ENV = "__payoutDeskTestEnv";

type Held = Record<string, unknown> & {
  __payoutDeskTestEnv?: NodeJS.ProcessEnv;
  __payoutDeskWorkers?: unknown;
  __payoutDeskBoss?: unknown;
  __payoutDeskDb?: Db;
  __payoutDeskRefusals?: { timer: ReturnType<typeof setInterval> | null };
};
const held = globalThis as unknown as Held;

// The first file's setup sees the environment the worker was started with; later files get it back.
held.__payoutDeskTestEnv ??= { ...process.env };
const startEnv = held.__payoutDeskTestEnv;
for (const name of Object.keys(process.env)) if (!(name in startEnv)) delete process.env[name];
Object.assign(process.env, startEnv);

for (const name of Object.keys(held)) if (name.startsWith(HELD_PREFIX) && name !== START_ENV) delete held[name];
vi.resetModules();

const events: NodeJS.EventEmitter = process;
const listenersBefore = new Map(PROCESS_EVENTS.map((event) => [event, new Set(events.listeners(event))]));

afterAll(async () => {
  // Modules the file loaded are still the file's own here: a stop imported now reaches what the file started.
  if (held.__payoutDeskWorkers) await (await import("../../lib/jobs/worker")).stopWorkers({ timeoutMs: 1_000 });
  else if (held.__payoutDeskBoss) await (await import("../../lib/jobs/queue")).stopBoss({ timeoutMs: 1_000 });
  if (held.__payoutDeskRefusals?.timer) clearInterval(held.__payoutDeskRefusals.timer);
  await held.__payoutDeskDb?.destroy().catch(() => undefined);
  for (const event of PROCESS_EVENTS) {
    const before = listenersBefore.get(event);
    for (const listener of events.listeners(event))
      if (!before?.has(listener)) events.removeListener(event, listener as () => void);
  }
});
