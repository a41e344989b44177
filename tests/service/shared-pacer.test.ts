import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PausedTooLong, type RateRule } from "../../lib/service/pacing";
import { createSharedPacer } from "../../lib/service/shared-pacer";
import { deleteIdlePace } from "../../db/queries/pacing";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { SLACK } from "../support/slack";
import * as hundredths from "../../db/migrations/2026_11_28_1100_pace_hundredths";

const WOULD_WAIT = "would wait";
const MINUTE = 60_000;

/** A pacer standing for one process; instead of sleeping it records the wait it was told and gives up. */
function processPacer(t: TestDatabase, limits: Record<string, readonly RateRule[]>, waits: number[]) {
  return createSharedPacer(t.db, {
    limits,
    marginMs: 0,
    marginRatio: 0,
    sleep: async (ms) => {
      waits.push(ms);
      throw new Error(WOULD_WAIT);
    },
  });
}

async function admittedIn(t: TestDatabase, key: string): Promise<number> {
  const rows = await sql<{
    n: number;
  }>`select coalesce((select sum(c) from unnest(counts) as c), 0) as n from service_pace where key = ${key}`.execute(
    t.db,
  );
  return Number(rows.rows[0]?.n ?? 0);
}

describe("the shared pacer", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  it("admits exactly the limit when three processes ask at once, and tells the others how long to wait", async () => {
    const limits = { reporting_aggregate: [{ scope: "game", limit: 7, perMs: MINUTE, source: "spec" }] as const };
    const waits: number[] = [];
    const pacers = [0, 1, 2].map(() => processPacer(t, limits, waits));
    const target = { gameId: "game_fleet" };
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => {
        const pacer = pacers[i % 3]!;
        return pacer.acquire(pacer.keysFor("reporting_aggregate", target));
      }),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(7);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(23);
    expect(await admittedIn(t, "game_fleet|reporting_aggregate")).toBe(7);
    // Everyone refused is told to come back when the admitted calls' slice of the window has left it, not sooner.
    expect(waits).toHaveLength(23);
    for (const wait of waits) {
      expect(wait).toBeGreaterThan(MINUTE - 5_000);
      expect(wait).toBeLessThanOrEqual(MINUTE + MINUTE / 100);
    }
  });

  it("records a call in all of its buckets or in none", async () => {
    const limits = {
      reporting_detail: [
        { scope: "game", limit: 100, perMs: MINUTE, source: "spec" },
        { scope: "subscription", limit: 2, perMs: MINUTE, source: "spec" },
      ] as const,
    };
    const waits: number[] = [];
    const pacer = processPacer(t, limits, waits);
    const keys = pacer.keysFor("reporting_detail", { gameId: "game_both", subscriptionId: "SUB_1" });
    expect(keys).toHaveLength(2);
    await pacer.acquire(keys);
    await pacer.acquire(keys);
    await expect(pacer.acquire(keys)).rejects.toThrow(WOULD_WAIT);
    expect(await admittedIn(t, "game_both|reporting_detail")).toBe(2);
    expect(await admittedIn(t, "game_both|reporting_detail|SUB_1")).toBe(2);
  });

  it("a 429's retry_after pauses every process", async () => {
    const limits = { refund: [{ scope: "subscription", limit: 20, perMs: MINUTE, source: "spec" }] as const };
    const waitsA: number[] = [];
    const waitsB: number[] = [];
    const a = processPacer(t, limits, waitsA);
    const b = processPacer(t, limits, waitsB);
    const keys = a.keysFor("refund", { gameId: "game_pause", subscriptionId: "SUB_2" });
    a.pause(keys, 30_000);
    // The pause is written before this process's next admission...
    await expect(a.acquire(keys)).rejects.toThrow(WOULD_WAIT);
    // ... and another process, which never saw the 429, waits for it too.
    await expect(b.acquire(b.keysFor("refund", { gameId: "game_pause", subscriptionId: "SUB_2" }))).rejects.toThrow(
      WOULD_WAIT,
    );
    // The pause is what is left of its 30 s: less by the time the two processes took, on a busy machine too.
    expect(waitsB[0]).toBeGreaterThan(30_000 - 5_000 * SLACK);
    expect(waitsB[0]).toBeLessThanOrEqual(30_000);
    expect(a.stats().pauses).toBe(1);
    // A caller that waits out no pause that long (a page's read) is refused at once, with what is left of it.
    const refused = await b
      .acquire(b.keysFor("refund", { gameId: "game_pause", subscriptionId: "SUB_2" }), undefined, { maxPauseMs: 5_000 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PausedTooLong);
    expect((refused as PausedTooLong).waitMs).toBeGreaterThan(30_000 - 5_000 * SLACK);
    expect(waitsB).toHaveLength(1);
  });

  it("admits again once the window has passed", async () => {
    // A window long enough for three calls to be taken inside it on a busy machine, so that the fourth must wait.
    const limits = { card_read: [{ scope: "game", limit: 3, perMs: 3_000, source: "chosen" }] as const };
    const waits: number[] = [];
    const sleeping = createSharedPacer(t.db, {
      limits,
      marginMs: 0,
      marginRatio: 0,
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const keys = sleeping.keysFor("card_read", { gameId: "game_window" });
    for (let i = 0; i < 4; i += 1) await sleeping.acquire(keys);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(3_000 + 3_000 / 100);
    expect(sleeping.stats()).toMatchObject({ acquired: 4, delayed: 1 });
  });

  it("keeps the calls of buckets in use when their slices are made finer, and admits none early", async () => {
    const limits = { reporting_aggregate: [{ scope: "game", limit: 4, perMs: MINUTE, source: "spec" }] as const };
    const key = "game_reslice|reporting_aggregate";
    const waits: number[] = [];
    const pacer = processPacer(t, limits, waits);
    const keys = pacer.keysFor("reporting_aggregate", { gameId: "game_reslice" });
    // Four calls admitted in twentieths of the window (before the change), then the change.
    await hundredths.down(t.db);
    for (let i = 0; i < 4; i += 1) await pacer.acquire(keys);
    const before = await sql<{ slots: string[] }>`select slots from service_pace where key = ${key}`.execute(t.db);
    // Usually one twentieth; two when the four calls crossed a slice's end (3 s) on a busy machine.
    const twentieths = (before.rows[0]?.slots ?? []).map(Number);
    expect(twentieths.length).toBeGreaterThan(0);
    await hundredths.up(t.db);
    const after = await sql<{ slots: string[] }>`select slots from service_pace where key = ${key}`.execute(t.db);
    // Each call is counted in the last hundredth of its twentieth: it leaves the window when it left it before.
    expect(after.rows[0]?.slots.map(Number)).toEqual(twentieths.map((n) => n * 5 + 4));
    expect(await admittedIn(t, key)).toBe(4);
    // The fifth waits until the four leave the window, as it would have before the change.
    await expect(pacer.acquire(keys)).rejects.toThrow(WOULD_WAIT);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(MINUTE - 5_000 * SLACK);
    expect(waits[0]).toBeLessThanOrEqual(MINUTE + MINUTE / 20);
  });

  it("forgets an idle bucket only once the admissions making or locking it have ended", async () => {
    const old = (key: string) => sql`insert into service_pace (key, touched_at)
      values (${key}, now() - interval '2 hours')`;
    await old("game_idle|card_read").execute(t.db);
    await old("game_gone|card_read").execute(t.db);
    // An admission as pace_acquire makes it, held open between making its row (nothing done: it exists) and locking it.
    let sweep: Promise<number> | null = null;
    let swept = false;
    const locked = await t.db.transaction().execute(async (trx) => {
      await sql`insert into service_pace (key) values ('game_idle|card_read') on conflict (key) do nothing`.execute(
        trx,
      );
      sweep = deleteIdlePace(t.db).finally(() => {
        swept = true;
      });
      // The sweep waits for this admission (its lock; 50 ms at most, then it gives up), or, taking no lock, has run
      // past it (the row deleted under the admission).
      for (;;) {
        const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and query like 'lock table service_pace%'`.execute(t.db);
        if (swept || Number(waiting.rows[0]?.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const row = await sql`select key from service_pace where key = 'game_idle|card_read' for update`.execute(trx);
      await sql`update service_pace set touched_at = now() where key = 'game_idle|card_read'`.execute(trx);
      return row.rows.length;
    });
    // The admission found its row to count in; the sweep (or, once it gave up waiting, the next) kept it (used now)
    // and forgot the other.
    expect(locked).toBe(1);
    expect(((await sweep) ?? 0) + (await deleteIdlePace(t.db))).toBe(1);
    const keys = await sql<{ key: string }>`select key from service_pace where key like 'game_%|card_read'
      and key in ('game_idle|card_read', 'game_gone|card_read')`.execute(t.db);
    expect(keys.rows.map((r) => r.key)).toEqual(["game_idle|card_read"]);
  });

  it("admits everything at once when pacing is off, touching no bucket", async () => {
    const pacer = createSharedPacer(t.db, { mode: "off" });
    expect(pacer.keysFor("reporting_aggregate", { gameId: "game_off" })).toEqual([]);
    expect(await pacer.acquire([])).toBe(0);
    expect(await admittedIn(t, "game_off|reporting_aggregate")).toBe(0);
  });
});
