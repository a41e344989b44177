import "server-only";

/**
 * Client-side pacing so a long pull stays inside the service's rate limits instead of learning them from 429s.
 *
 * Each limit is a sliding-window log: a bucket admits a call when fewer than `limit` calls were admitted in the last
 * `windowMs`. A sequence admitted that way also passes a fixed-window counter or a token bucket of the same limit on
 * the server, so it is safe whatever algorithm the service uses. Each window is widened by a small margin because the
 * service counts arrivals, not departures, and two requests can take different times to get there.
 *
 * One call may need several buckets (a detail route counts against the game and the subscription); it waits until all
 * of them have room and is then recorded in all of them at once. A 429's retry_after pauses the call's buckets so
 * every caller backs off, not only the one that was refused.
 */

export type RouteClass =
  | "reporting_aggregate"
  | "reporting_detail"
  | "refund"
  | "subscription_read"
  | "subscription_change"
  | "balance_read"
  | "card_read";

export type RateRule = {
  scope: "game" | "subscription";
  limit: number;
  perMs: number;
  /** "spec" when the service's reference states the limit, "chosen" when it is silent and the value is ours. */
  source: "spec" | "chosen";
};

const MINUTE = 60_000;

/**
 * The limits Payout Desk keeps to, per game (one game secret) and, where stated, per subscription.
 * "Reporting rates: aggregate 60 per minute per game; detail routes 600 per minute per game and 120 per minute per
 * subscription"; "Refund calls: 20 per minute per subscription"; "Balance reads: 1500 per minute". The spec gives no
 * limit for subscription reads and changes or card reads; those values are chosen well below anything a support desk
 * needs, so that Payout Desk never eats into the quota the game's own servers share with it.
 */
export const SERVICE_RATE_LIMITS: Readonly<Record<RouteClass, readonly RateRule[]>> = {
  reporting_aggregate: [{ scope: "game", limit: 60, perMs: MINUTE, source: "spec" }],
  reporting_detail: [
    { scope: "game", limit: 600, perMs: MINUTE, source: "spec" },
    { scope: "subscription", limit: 120, perMs: MINUTE, source: "spec" },
  ],
  refund: [{ scope: "subscription", limit: 20, perMs: MINUTE, source: "spec" }],
  subscription_read: [{ scope: "game", limit: 300, perMs: MINUTE, source: "chosen" }],
  subscription_change: [
    { scope: "game", limit: 60, perMs: MINUTE, source: "chosen" },
    { scope: "subscription", limit: 20, perMs: MINUTE, source: "chosen" },
  ],
  balance_read: [{ scope: "game", limit: 1500, perMs: MINUTE, source: "spec" }],
  card_read: [{ scope: "game", limit: 300, perMs: MINUTE, source: "chosen" }],
};

/** One bucket a call must pass: its identity and its (already scaled and widened) limit. */
export type PaceKey = { readonly key: string; readonly limit: number; readonly windowMs: number };

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export type PacingOptions = {
  /** "off" admits everything at once (the emulator's limits off, or a bare-fetch bench). */
  mode?: "on" | "off";
  /**
   * K: every window is divided by K, so limits run K times faster, matching the emulator's `--rate-limits scaled:K`.
   * Dividing the window (rather than multiplying the count) is the stricter reading: N calls per W/K also keeps
   * N*K calls per W.
   */
  scale?: number;
  /** Widening of each window as a fraction of it (default 0.02) ... */
  marginRatio?: number;
  /** ... plus a constant (default 5 ms). */
  marginMs?: number;
  /**
   * "burst" (default) lets a bucket spend its whole window at once; "spread" also spaces calls at least window/limit
   * apart, for a service that meters with a leaky bucket. Both average to the same rate.
   */
  shape?: "burst" | "spread";
  /** Overrides for some route classes (for example a tighter limit shared with other tools). */
  limits?: Partial<Record<RouteClass, readonly RateRule[]>>;
  now?: () => number;
  sleep?: Sleep;
};

export type PacerStats = {
  /** Calls admitted. */
  acquired: number;
  /** Admitted calls that had to wait, and the total time they waited. */
  delayed: number;
  waitedMs: number;
  /** Pauses applied from a 429. */
  pauses: number;
  /** Buckets held in memory right now. */
  buckets: number;
};

/**
 * A call the pacer refused at once: its buckets are paused (a 429's retry_after) for longer than its caller waits
 * (`maxPauseMs`). Nothing was sent.
 */
export class PausedTooLong extends Error {
  constructor(readonly waitMs: number) {
    super(`this game's calls are paused for ${Math.ceil(waitMs / 1000)} s more after a 429`);
    this.name = "PausedTooLong";
  }
}

export type AcquireOptions = {
  /** The longest pause the caller waits out; a longer one is refused at once (PausedTooLong). Default: any. */
  maxPauseMs?: number;
};

export type Pacer = {
  readonly mode: "on" | "off";
  readonly scale: number;
  /** The buckets a call on `route` for this game (and subscription, when known) must pass. Empty when off. */
  keysFor(route: RouteClass, target: { gameId: string; subscriptionId?: string | null }): PaceKey[];
  /** Waits until every bucket has room, records the call in all of them, and resolves with the time waited. */
  acquire(keys: readonly PaceKey[], signal?: AbortSignal, options?: AcquireOptions): Promise<number>;
  /** Holds every listed bucket closed for `ms` (a 429's retry_after). */
  pause(keys: readonly PaceKey[], ms: number): void;
  stats(): PacerStats;
};

type Bucket = { log: number[]; pausedUntil: number; lastAt: number };

const monotonicNow = (): number => performance.timeOrigin + performance.now();

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Parses the emulator's flag form: "off", "on" (the documented limits) or "scaled:K". */
export function parsePacingMode(text: string): Pick<PacingOptions, "mode" | "scale"> {
  const value = text.trim().toLowerCase();
  if (value === "off") return { mode: "off" };
  if (value === "on" || value === "spec" || value === "documented") return { mode: "on", scale: 1 };
  const scaled = /^scaled:(\d+(?:\.\d+)?)$/.exec(value);
  const k = scaled ? Number(scaled[1]) : Number.NaN;
  if (!Number.isFinite(k) || k <= 0)
    throw new Error(`pacing must be "off", "on" or "scaled:K" with K > 0, got "${text}"`);
  return { mode: "on", scale: k };
}

/**
 * The buckets a call on `route` must pass, with each window divided by the scale and widened by the margin. Shared
 * by the in-process pacer and the database-backed one, so both keep to the same limits.
 */
export function paceKeysBuilder(
  options: Pick<PacingOptions, "mode" | "scale" | "marginRatio" | "marginMs" | "limits">,
): Pacer["keysFor"] {
  const mode = options.mode ?? "on";
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError("pacing scale must be a positive number");
  const marginRatio = options.marginRatio ?? 0.02;
  const marginMs = options.marginMs ?? 5;
  const limits = { ...SERVICE_RATE_LIMITS, ...options.limits };
  return (route, target) => {
    if (mode === "off") return [];
    const keys: PaceKey[] = [];
    for (const rule of limits[route] ?? []) {
      const windowMs = (rule.perMs / scale) * (1 + marginRatio) + marginMs;
      if (rule.scope === "game") {
        keys.push({ key: `${target.gameId}|${route}`, limit: rule.limit, windowMs });
      } else if (target.subscriptionId) {
        keys.push({ key: `${target.gameId}|${route}|${target.subscriptionId}`, limit: rule.limit, windowMs });
      }
    }
    return keys;
  };
}

export function createPacer(options: PacingOptions = {}): Pacer {
  const mode = options.mode ?? "on";
  const scale = options.scale ?? 1;
  const keysFor = paceKeysBuilder(options);
  const spread = options.shape === "spread";
  const now = options.now ?? monotonicNow;
  const sleep = options.sleep ?? realSleep;

  const buckets = new Map<string, Bucket>();
  const stats = { acquired: 0, delayed: 0, waitedMs: 0, pauses: 0 };
  let sinceSweep = 0;

  function bucketFor(key: string): Bucket {
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { log: [], pausedUntil: Number.NEGATIVE_INFINITY, lastAt: Number.NEGATIVE_INFINITY };
      buckets.set(key, bucket);
    }
    return bucket;
  }

  /** The earliest instant >= t at which `bucket` admits one more call. */
  function readyAt(bucket: Bucket, pace: PaceKey, t: number): number {
    let expired = 0;
    while (expired < bucket.log.length && (bucket.log[expired] as number) <= t - pace.windowMs) expired += 1;
    if (expired > 0) bucket.log.splice(0, expired);
    let ready = Math.max(t, bucket.pausedUntil);
    if (bucket.log.length >= pace.limit) {
      ready = Math.max(ready, (bucket.log[bucket.log.length - pace.limit] as number) + pace.windowMs);
    }
    if (spread) ready = Math.max(ready, bucket.lastAt + pace.windowMs / pace.limit);
    return ready;
  }

  // Remembered per key so the sweep knows when a bucket is idle.
  const windows = new Map<string, number>();
  const windowOf = (key: string): number => windows.get(key) ?? 0;

  function sweep(t: number): void {
    sinceSweep = 0;
    for (const [key, bucket] of buckets) {
      const newest = bucket.log[bucket.log.length - 1];
      const window = windowOf(key);
      if ((newest === undefined || newest <= t - window) && bucket.pausedUntil <= t) {
        buckets.delete(key);
        windows.delete(key);
      }
    }
  }

  return {
    mode,
    scale,
    keysFor,
    async acquire(keys, signal, options) {
      if (mode === "off" || keys.length === 0) {
        stats.acquired += 1;
        return 0;
      }
      for (const pace of keys) windows.set(pace.key, Math.max(windowOf(pace.key), pace.windowMs));
      const started = now();
      let slept = false;
      for (;;) {
        signal?.throwIfAborted();
        const t = now();
        const pausedFor = Math.max(0, ...keys.map((pace) => bucketFor(pace.key).pausedUntil - t));
        if (options?.maxPauseMs !== undefined && pausedFor > options.maxPauseMs) throw new PausedTooLong(pausedFor);
        let ready = t;
        for (const pace of keys) ready = Math.max(ready, readyAt(bucketFor(pace.key), pace, t));
        if (ready <= t) {
          for (const pace of keys) {
            const bucket = bucketFor(pace.key);
            bucket.log.push(t);
            bucket.lastAt = t;
          }
          const waited = slept ? t - started : 0;
          stats.acquired += 1;
          if (waited > 0) {
            stats.delayed += 1;
            stats.waitedMs += waited;
          }
          sinceSweep += 1;
          if (sinceSweep >= 1000) sweep(t);
          return waited;
        }
        // Another caller may take the slot first; the loop then waits for the next one.
        await sleep(ready - t, signal);
        slept = true;
      }
    },
    pause(keys, ms) {
      if (mode === "off" || !(ms > 0)) return;
      const until = now() + ms;
      for (const pace of keys) {
        windows.set(pace.key, Math.max(windowOf(pace.key), pace.windowMs));
        const bucket = bucketFor(pace.key);
        bucket.pausedUntil = Math.max(bucket.pausedUntil, until);
      }
      stats.pauses += 1;
    },
    stats() {
      return { ...stats, buckets: buckets.size };
    },
  };
}

/** The floor a rate limit puts under `calls` calls through one bucket: full windows after the first burst. */
export function pacingFloorMs(calls: number, limit: number, windowMs: number): number {
  if (calls <= limit) return 0;
  return (Math.ceil(calls / limit) - 1) * windowMs;
}
