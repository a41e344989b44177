import "server-only";
import type { Db } from "@/db";
import { addWebhookRefusalCounts, type RefusalCount } from "@/db/queries/webhook-receiving";
import { log } from "@/lib/log";

/**
 * Refused deliveries are counted in memory and written every REFUSAL_FLUSH_INTERVAL_MS (and when the process is
 * asked to stop), so a flood of forged requests costs no database write per request. The map is bounded: once it
 * holds MAX_KEYS counters, new keys are counted under no game. A crash loses at most one interval of counts.
 */
export const REFUSAL_FLUSH_INTERVAL_MS = 10_000;
export const MAX_KEYS = 1_000;

type Pending = Map<string, RefusalCount>;
type State = {
  byDb: Map<Db, Pending>;
  timer: ReturnType<typeof setInterval> | null;
  flushing: Promise<void>;
  hooked: boolean;
};

const holder = globalThis as unknown as { __payoutDeskRefusals?: State };
holder.__payoutDeskRefusals ??= {
  byDb: new Map(),
  timer: null,
  flushing: Promise.resolve(),
  hooked: false,
};
const state: State = holder.__payoutDeskRefusals;

function utcDay(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}

function add(pending: Pending, entry: RefusalCount): void {
  let key = `${entry.gameId}\n${entry.day}\n${entry.reason}`;
  if (!pending.has(key) && pending.size >= MAX_KEYS) {
    entry = { ...entry, gameId: "" };
    key = `\n${entry.day}\n${entry.reason}`;
  }
  const existing = pending.get(key);
  if (existing) {
    existing.count += entry.count;
    if (entry.lastAt > existing.lastAt) existing.lastAt = entry.lastAt;
  } else {
    pending.set(key, { ...entry });
  }
}

/**
 * Counts one refused delivery. `gameId` is the game the URL names when it may be one ('' otherwise); ids that name no
 * game are written under '' when the counts are flushed.
 */
export function countRefusal(db: Db, input: { gameId: string; reason: string; atMs?: number }): void {
  const atMs = input.atMs ?? Date.now();
  let pending = state.byDb.get(db);
  if (!pending) {
    pending = new Map();
    state.byDb.set(db, pending);
  }
  add(pending, { gameId: input.gameId, day: utcDay(atMs), reason: input.reason, count: 1, lastAt: new Date(atMs) });
  startFlushing();
}

function startFlushing(): void {
  if (!state.timer) {
    state.timer = setInterval(() => void flushWebhookRefusals(), REFUSAL_FLUSH_INTERVAL_MS);
    // The timer alone never keeps the process running.
    state.timer.unref?.();
  }
  if (!state.hooked) {
    state.hooked = true;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        void flushWebhookRefusals().finally(() => {
          // Alone on the signal (no server listening for it), let it do what it would have done without us.
          if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
        });
      });
    }
  }
}

async function flushOnce(): Promise<void> {
  const batches = [...state.byDb.entries()];
  state.byDb.clear();
  for (const [db, pending] of batches) {
    const counts = [...pending.values()];
    try {
      await addWebhookRefusalCounts(db, counts);
    } catch (error) {
      // Kept for the next flush (still bounded): the counts are worth a retry, not an error to anyone.
      log.warn("webhook refusal counts not written", { keys: counts.length, error });
      let back = state.byDb.get(db);
      if (!back) {
        back = new Map();
        state.byDb.set(db, back);
      }
      for (const count of counts) add(back, count);
    }
  }
}

function stopWhenIdle(): void {
  // Nothing left to write: no timer until the next refusal.
  if (state.byDb.size === 0 && state.timer) {
    clearInterval(state.timer);
    state.timer = null;
  }
}

/** Writes the counts gathered so far (after any flush already under way). */
export function flushWebhookRefusals(): Promise<void> {
  const run = () => flushOnce().then(stopWhenIdle);
  state.flushing = state.flushing.then(run, run);
  return state.flushing;
}

/** Resolves when the flushes started so far are done. */
export function whenRefusalsFlushed(): Promise<void> {
  return state.flushing;
}
