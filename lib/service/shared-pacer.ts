import "server-only";
import type { Db } from "@/db";
import { acquirePace, deleteIdlePace, pausedForMs, pausePace } from "@/db/queries/pacing";
import { log } from "@/lib/log";
import { type Pacer, type PacingOptions, PausedTooLong, paceKeysBuilder, realSleep } from "./pacing";

export type SharedPacingOptions = Pick<
  PacingOptions,
  "mode" | "scale" | "marginRatio" | "marginMs" | "limits" | "shape"
> & {
  sleep?: PacingOptions["sleep"];
};

const keyNames = (keys: readonly { key: string }[]) => keys.map((k) => k.key);

/**
 * The pacer of a fleet: the same buckets and limits as the in-process pacer, but their state lives in PostgreSQL, so
 * every web server, worker and CLI run of a deployment together keeps to the service's per-game limits, and a 429's
 * retry_after pauses all of them. Each admission is one statement (`pace_acquire`), atomic under concurrency.
 */
export function createSharedPacer(db: Db, options: SharedPacingOptions = {}): Pacer {
  const mode = options.mode ?? "on";
  const scale = options.scale ?? 1;
  const keysFor = paceKeysBuilder(options);
  const spread = options.shape === "spread";
  const sleep = options.sleep ?? realSleep;
  const stats = { acquired: 0, delayed: 0, waitedMs: 0, pauses: 0 };
  // A pause is written in the background (pause() cannot wait); the next admission waits for it first.
  let pending: Promise<void> = Promise.resolve();
  let sinceSweep = 0;

  return {
    mode,
    scale,
    keysFor,
    async acquire(keys, signal, options) {
      if (mode === "off" || keys.length === 0) {
        stats.acquired += 1;
        return 0;
      }
      await pending;
      let waited = 0;
      for (;;) {
        signal?.throwIfAborted();
        const waitMs = await acquirePace(db, keys, spread);
        if (waitMs <= 0) break;
        // A long wait may be a pause (asked only then: most waits are short and a bucket's own).
        const most = options?.maxPauseMs;
        if (most !== undefined && waitMs > most) {
          const pausedFor = await pausedForMs(db, keyNames(keys));
          if (pausedFor > most) throw new PausedTooLong(pausedFor);
        }
        await sleep(waitMs, signal);
        waited += waitMs;
      }
      stats.acquired += 1;
      if (waited > 0) {
        stats.delayed += 1;
        stats.waitedMs += waited;
      }
      sinceSweep += 1;
      if (sinceSweep >= 1000) {
        sinceSweep = 0;
        void deleteIdlePace(db).catch((error: unknown) => log.warn("pacer sweep failed", { error }));
      }
      return waited;
    },
    pause(keys, ms) {
      if (mode === "off" || !(ms > 0) || keys.length === 0) return;
      stats.pauses += 1;
      const write = pausePace(db, keyNames(keys), ms).catch((error: unknown) =>
        log.warn("pacer pause not stored", { error }),
      );
      pending = pending.then(() => write);
    },
    stats() {
      return { ...stats, buckets: 0 };
    },
  };
}
