import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { HEARTBEAT_MS, holdLease, LEASE_MS, LeaseLostError, STOP_CALL_AFTER_MS } from "./lease";

/** A database whose every update answers with `result` (a promise that may never settle). */
function dbAnswering(result: () => Promise<unknown>): { db: Db; renewals: () => number } {
  let renewals = 0;
  const chain: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === "executeTakeFirst") {
          return () => {
            renewals += 1;
            return result();
          };
        }
        return () => chain;
      },
    },
  );
  return { db: chain as unknown as Db, renewals: () => renewals };
}

function manualClock() {
  let now = 1_800_000_000_000;
  let tick: (() => Promise<void> | void) | null = null;
  return {
    now: () => now,
    leaseNow: async () => now,
    every(_ms: number, fn: () => Promise<void> | void) {
      tick = fn;
      return () => {
        tick = null;
      };
    },
    async beat() {
      now += HEARTBEAT_MS;
      await tick?.();
    },
  };
}

describe("holdLease", () => {
  it("stops the call before the hold can run out when renewals hang", async () => {
    expect(STOP_CALL_AFTER_MS + HEARTBEAT_MS).toBeLessThanOrEqual(LEASE_MS);
    const { db, renewals } = dbAnswering(() => new Promise(() => {}));
    const clock = manualClock();
    const lease = holdLease(db, "a", "t", clock);
    const start = clock.now();
    while (!lease.signal.aborted) {
      void clock.beat();
      await Promise.resolve();
      expect(clock.now() - start).toBeLessThan(LEASE_MS);
    }
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(renewals()).toBe(1);
    lease.stop();
  });

  it("keeps the call going while renewals succeed, and stops it when another request holds the attempt", async () => {
    let held = true;
    const { db, renewals } = dbAnswering(async () => (held ? { id: "a" } : undefined));
    const clock = manualClock();
    const lease = holdLease(db, "a", "t", clock);
    for (let i = 0; i < 40; i++) await clock.beat();
    expect(lease.signal.aborted).toBe(false);
    expect(renewals()).toBe(40);
    held = false;
    await clock.beat();
    expect(lease.signal.aborted).toBe(true);
    lease.stop();
  });
});
