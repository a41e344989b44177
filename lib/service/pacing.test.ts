import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createPacer,
  pacingFloorMs,
  parsePacingMode,
  type PaceKey,
  type PacingOptions,
  PausedTooLong,
  type Sleep,
} from "./pacing";

/**
 * Virtual time: `sleep` parks a timer; `run` fires timers in time order, draining every pending promise in between.
 * Nothing here reads the wall clock, so every admitted time is exact.
 */
function virtualTime() {
  let now = 0;
  let seq = 0;
  const timers: { at: number; seq: number; resolve: () => void; reject: (reason: unknown) => void }[] = [];
  const drain = () => new Promise<void>((resolve) => setImmediate(resolve));
  const sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      const timer = { at: now + Math.max(0, ms), seq: seq++, resolve, reject };
      timers.push(timer);
      signal?.addEventListener("abort", () => {
        timers.splice(timers.indexOf(timer), 1);
        reject(signal.reason);
      });
    });
  return {
    now: () => now,
    sleep,
    async run(): Promise<void> {
      for (let guard = 0; guard < 100_000; guard += 1) {
        await drain();
        if (timers.length === 0) return;
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = timers.shift()!;
        now = Math.max(now, next.at);
        next.resolve();
      }
      throw new Error("virtual time did not settle");
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

const exact = (clock: ReturnType<typeof virtualTime>, extra: PacingOptions = {}) =>
  createPacer({ now: clock.now, sleep: clock.sleep, marginRatio: 0, marginMs: 0, ...extra });

/** Starts every call at once and records when each was admitted. */
async function admitAll(
  clock: ReturnType<typeof virtualTime>,
  pacer: ReturnType<typeof createPacer>,
  calls: readonly PaceKey[][],
): Promise<number[]> {
  const admitted: number[] = new Array(calls.length).fill(Number.NaN);
  const all = Promise.all(calls.map((keys, i) => pacer.acquire(keys).then(() => (admitted[i] = clock.now()))));
  await clock.run();
  await all;
  return admitted;
}

describe("keysFor", () => {
  it("maps route classes to the spec's buckets, per game and per subscription", () => {
    const pacer = createPacer({ marginRatio: 0, marginMs: 0 });
    expect(pacer.keysFor("reporting_aggregate", { gameId: "g1" })).toEqual([
      { key: "g1|reporting_aggregate", limit: 60, windowMs: 60_000 },
    ]);
    expect(pacer.keysFor("reporting_detail", { gameId: "g1", subscriptionId: "SUB_1" })).toEqual([
      { key: "g1|reporting_detail", limit: 600, windowMs: 60_000 },
      { key: "g1|reporting_detail|SUB_1", limit: 120, windowMs: 60_000 },
    ]);
    expect(pacer.keysFor("reporting_detail", { gameId: "g1" })).toHaveLength(1);
    expect(pacer.keysFor("refund", { gameId: "g1", subscriptionId: "SUB_1" })).toEqual([
      { key: "g1|refund|SUB_1", limit: 20, windowMs: 60_000 },
    ]);
    expect(pacer.keysFor("balance_read", { gameId: "g1" })[0]?.limit).toBe(1500);
    expect(pacer.keysFor("reporting_aggregate", { gameId: "g2" })[0]?.key).toBe("g2|reporting_aggregate");
  });

  it("scales windows by K and widens them by the margin", () => {
    const pacer = createPacer({ scale: 60 });
    expect(pacer.keysFor("reporting_aggregate", { gameId: "g" })).toEqual([
      { key: "g|reporting_aggregate", limit: 60, windowMs: 1000 * 1.02 + 5 },
    ]);
  });

  it("is empty when off, and acquire never waits", async () => {
    const clock = virtualTime();
    const pacer = createPacer({ mode: "off", now: clock.now, sleep: clock.sleep });
    expect(pacer.keysFor("refund", { gameId: "g", subscriptionId: "S" })).toEqual([]);
    const admitted = await admitAll(
      clock,
      pacer,
      Array.from({ length: 500 }, () => []),
    );
    expect(new Set(admitted)).toEqual(new Set([0]));
  });

  it("refuses a scale that is not positive", () => {
    expect(() => createPacer({ scale: 0 })).toThrow();
    expect(() => createPacer({ scale: Number.NaN })).toThrow();
  });
});

describe("acquire", () => {
  const key = (name: string, limit: number, windowMs = 1000): PaceKey => ({ key: name, limit, windowMs });

  it("admits a full window at once, then one window later: exactly at the limit", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    const admitted = await admitAll(
      clock,
      pacer,
      Array.from({ length: 7 }, () => [key("a", 3)]),
    );
    expect(admitted).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
    expect(pacer.stats()).toMatchObject({ acquired: 7, delayed: 4, waitedMs: 1000 * 3 + 2000 });
  });

  it("keeps to a sliding window, not a fixed one", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    await pacer.acquire([key("a", 2)]);
    clock.advance(900);
    await pacer.acquire([key("a", 2)]);
    clock.advance(200); // t = 1100: the call at 0 left the window, the one at 900 has not
    const admitted = await admitAll(clock, pacer, [[key("a", 2)], [key("a", 2)]]);
    expect(admitted).toEqual([1100, 1900]);
  });

  it("waits for every bucket a call needs and records it in all of them at once", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    const game = key("game", 4);
    const calls = [
      [game, key("subA", 2)],
      [game, key("subA", 2)],
      [game, key("subA", 2)],
      [game, key("subB", 2)],
      [game, key("subB", 2)],
      [game, key("subB", 2)],
    ];
    const admitted = await admitAll(clock, pacer, calls);
    expect(admitted).toEqual([0, 0, 1000, 0, 0, 1000]);
  });

  it("lets other subscriptions through while one waits for its own bucket", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    const calls = [[key("subA", 1)], [key("subA", 1)], [key("subB", 1)], [key("subC", 1)]];
    const admitted = await admitAll(clock, pacer, calls);
    expect(admitted).toEqual([0, 1000, 0, 0]);
  });

  it("pauses the listed buckets for a 429's retry_after, and only those", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    pacer.pause([key("subA", 20)], 5_000);
    const admitted = await admitAll(clock, pacer, [[key("subA", 20)], [key("subB", 20)], [key("subA", 20)]]);
    expect(admitted).toEqual([5_000, 0, 5_000]);
    expect(pacer.stats().pauses).toBe(1);
  });

  it("refuses at once a caller that waits out no pause that long, and admits one that does", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    pacer.pause([key("a", 5)], 5_000);
    const refused = await pacer.acquire([key("a", 5)], undefined, { maxPauseMs: 4_999 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PausedTooLong);
    expect((refused as PausedTooLong).waitMs).toBe(5_000);
    // A bucket that is merely full is waited for whatever the limit: only a pause is refused.
    expect(await admitAll(clock, pacer, [[key("b", 1)], [key("b", 1)]])).toEqual([0, 1_000]);
    const full = pacer.acquire([key("b", 1)], undefined, { maxPauseMs: 10 });
    // At 1 s: 4 s of the pause left, within what this caller waits.
    const waited = pacer.acquire([key("a", 5)], undefined, { maxPauseMs: 4_000 });
    await clock.run();
    expect(await waited).toBe(4_000);
    expect(await full).toBe(1_000);
  });

  it("a second, shorter pause does not shorten the first", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    pacer.pause([key("a", 5)], 3_000);
    pacer.pause([key("a", 5)], 1_000);
    expect(await admitAll(clock, pacer, [[key("a", 5)]])).toEqual([3_000]);
  });

  it("spreads calls evenly in spread shape", async () => {
    const clock = virtualTime();
    const pacer = exact(clock, { shape: "spread" });
    const admitted = await admitAll(
      clock,
      pacer,
      Array.from({ length: 5 }, () => [key("a", 4)]),
    );
    expect(admitted).toEqual([0, 250, 500, 750, 1000]);
  });

  it("runs a scaled reporting pull at the scaled limit (60 per second at K=60)", async () => {
    const clock = virtualTime();
    const pacer = createPacer({ scale: 60, now: clock.now, sleep: clock.sleep });
    const keys = pacer.keysFor("reporting_aggregate", { gameId: "g" });
    const admitted = await admitAll(
      clock,
      pacer,
      Array.from({ length: 181 }, () => keys),
    );
    const windowMs = 1000 * 1.02 + 5;
    expect(admitted[59]).toBe(0);
    expect(admitted[60]).toBe(windowMs);
    expect(admitted[180]).toBe(3 * windowMs);
    // within 3% of the floor the limit imposes
    expect(admitted[180]! / pacingFloorMs(181, 60, 1000)).toBeLessThan(1.03);
  });

  it("stops waiting when its signal aborts", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    await pacer.acquire([key("a", 1)]);
    const controller = new AbortController();
    const waiting = pacer.acquire([key("a", 1)], controller.signal);
    controller.abort(new Error("job cancelled"));
    await expect(waiting).rejects.toThrow("job cancelled");
  });

  it("forgets idle buckets", async () => {
    const clock = virtualTime();
    const pacer = exact(clock);
    for (let i = 0; i < 1000; i += 1) await pacer.acquire([key(`sub${i}`, 20)]);
    expect(pacer.stats().buckets).toBe(1000);
    clock.advance(5_000);
    for (let i = 0; i < 1000; i += 1) await pacer.acquire([key(`other${i}`, 20)]);
    expect(pacer.stats().buckets).toBeLessThanOrEqual(1000);
  });

  it("never lets more than `limit` calls into any window, whatever the arrivals", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 5_000 }),
            buckets: fc.subarray(["game", "subA", "subB"], { minLength: 1 }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        async (arrivals) => {
          const limits: Record<string, PaceKey> = {
            game: key("game", 5, 1000),
            subA: key("subA", 2, 700),
            subB: key("subB", 3, 1300),
          };
          const clock = virtualTime();
          const pacer = exact(clock);
          const admitted: { at: number; buckets: string[] }[] = [];
          const all = Promise.all(
            arrivals.map(async (arrival) => {
              await clock.sleep(arrival.at);
              await pacer.acquire(arrival.buckets.map((name) => limits[name]!));
              admitted.push({ at: clock.now(), buckets: arrival.buckets });
            }),
          );
          await clock.run();
          await all;
          expect(admitted).toHaveLength(arrivals.length);
          for (const [name, pace] of Object.entries(limits)) {
            const times = admitted.filter((a) => a.buckets.includes(name)).map((a) => a.at);
            times.sort((a, b) => a - b);
            for (let i = pace.limit; i < times.length; i += 1) {
              expect(times[i]! - times[i - pace.limit]!).toBeGreaterThanOrEqual(pace.windowMs);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("parsePacingMode and the floor", () => {
  it("reads the emulator's flag forms", () => {
    expect(parsePacingMode("off")).toEqual({ mode: "off" });
    expect(parsePacingMode("on")).toEqual({ mode: "on", scale: 1 });
    expect(parsePacingMode("scaled:50")).toEqual({ mode: "on", scale: 50 });
    expect(parsePacingMode("SCALED:2.5")).toEqual({ mode: "on", scale: 2.5 });
    expect(() => parsePacingMode("scaled:0")).toThrow();
    expect(() => parsePacingMode("fast")).toThrow();
  });

  it("computes the floor of a burst-then-window limit", () => {
    expect(pacingFloorMs(60, 60, 60_000)).toBe(0);
    expect(pacingFloorMs(61, 60, 60_000)).toBe(60_000);
    expect(pacingFloorMs(181, 60, 1000)).toBe(3000);
  });
});
