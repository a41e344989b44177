import "server-only";
import type { Db } from "@/db";
import { renewRefundLease } from "@/db/queries/refund-leases";
import { databaseNowMs } from "@/db/queries/scalar";
import { log } from "@/lib/log";

/**
 * The hold a request takes on an attempt while it calls the service. It is short, so that an attempt left by a
 * crash is taken up again soon, and it outlives the call by construction, however long the call runs (in-call
 * retries, retry_after waits, pacing): the holder renews it every HEARTBEAT_MS while the call runs, and stops the
 * call (aborting the request in flight and any further retry) before the hold could run out unrenewed.
 */
export const LEASE_MS = 60_000;
export const HEARTBEAT_MS = 15_000;
/** Unrenewed for this long, the call is stopped: a full heartbeat before the hold runs out. */
export const STOP_CALL_AFTER_MS = LEASE_MS - HEARTBEAT_MS;

/** Time and timers of the hold; a test drives them by hand. */
export type LeaseClock = {
  /** Epoch ms, for how long ago something happened in this process. */
  now(): number;
  /**
   * Epoch ms that holds are taken, renewed and judged at: the database's clock, since a hold written by one process
   * is judged by another, whose own clock may differ by more than a hold lasts.
   */
  leaseNow(db: Db): Promise<number>;
  /** Runs `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => Promise<void> | void): () => void;
};

export const SYSTEM_CLOCK: LeaseClock = {
  now: () => Date.now(),
  leaseNow: (db) => databaseNowMs(db),
  every(ms, tick) {
    const timer = setInterval(() => void tick(), ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};

export type HeldLease = {
  /** Aborted when the hold could not be renewed in time, or another request holds the attempt now. */
  signal: AbortSignal;
  stop(): void;
};

/** Keeps the hold of `token` on the attempt while the caller's call runs. */
export function holdLease(db: Db, attemptId: string, token: string, clock: LeaseClock): HeldLease {
  const controller = new AbortController();
  let renewedAt = clock.now();
  let renewing = false;
  const lose = (reason: string) => {
    if (controller.signal.aborted) return;
    log.warn("refund call stopped: its hold on the attempt could not be kept", { attempt: attemptId, reason });
    controller.abort(new LeaseLostError(reason));
  };
  const stopTimer = clock.every(HEARTBEAT_MS, async () => {
    if (controller.signal.aborted) return;
    if (clock.now() - renewedAt >= STOP_CALL_AFTER_MS) return lose("not renewed in time");
    if (renewing) return;
    renewing = true;
    const at = clock.now();
    try {
      const terms = { leaseMs: LEASE_MS, nowMs: await clock.leaseNow(db) };
      if (await renewRefundLease(db, attemptId, token, terms)) renewedAt = at;
      else lose("held by another request, or finished");
    } catch (error) {
      log.warn("could not renew a refund attempt's hold", { attempt: attemptId, error });
    } finally {
      renewing = false;
    }
  });
  return {
    signal: controller.signal,
    stop() {
      stopTimer();
    },
  };
}

export class LeaseLostError extends Error {
  constructor(reason: string) {
    super(`the hold on the refund attempt was lost (${reason})`);
    this.name = "LeaseLostError";
  }
}
