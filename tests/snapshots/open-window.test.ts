import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPEN_WINDOW_MARGIN_MS, readingBounds } from "@/lib/snapshots/pull-common";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import type { FetchLike } from "@/lib/service/client";
import { admin, buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * A window still open (the current month) keeps changing while its pages are read: a renewal or a refund every few
 * seconds in a large game. Its pull reads it up to a moment just before reading began, so what the service records
 * meanwhile neither changes the figures between pages nor goes missing unnoticed (the snapshot is as of that moment,
 * and a stale mark after it makes it stale). Against the emulator over HTTP, its clock the real one.
 */

const HOUR = 3_600_000;
const hour = Math.floor(Date.now() / HOUR) * HOUR;
/** Open: from three hours ago to two hours ahead. Its renewals were all paid in its first hour. */
const WINDOW = { startMs: hour - 3 * HOUR, endMs: hour + 2 * HOUR };
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 250,
      renewalsPerRecipient: 1,
      start: iso(WINDOW.startMs),
      end: iso(WINDOW.startMs + HOUR),
      // The service's clock is the real one: a refund made during the read is made now.
      clock: iso(Math.floor(Date.now() / 1000) * 1000),
    }),
  );
});
afterAll(async () => env?.close());

describe("an open window", () => {
  it("is read up to a minute before its pull began, on a whole second; a closed one whole", () => {
    const started = Date.parse("2026-11-26T10:15:30.250Z");
    const month = { startMs: Date.parse("2026-11-01T00:00:00Z"), endMs: Date.parse("2026-12-01T00:00:00Z") };
    expect(readingBounds(month, started)).toEqual({
      read: { startMs: month.startMs, endMs: Date.parse("2026-11-26T10:14:30Z") },
      asOf: new Date("2026-11-26T10:14:30Z"),
    });
    const october = { startMs: Date.parse("2026-10-01T00:00:00Z"), endMs: month.startMs };
    expect(readingBounds(october, started)).toEqual({ read: october, asOf: new Date(started) });
    // A window begun less than the margin ago is read whole.
    const justBegun = { startMs: started - OPEN_WINDOW_MARGIN_MS / 2, endMs: started + HOUR };
    expect(readingBounds(justBegun, started).read).toEqual(justBegun);
  });

  it("keeps its figures while a refund lands during the read; the snapshot leaves it to the next pull", async () => {
    const ends: string[] = [];
    const watched: FetchLike = (url, init) => {
      const end = new URL(url).searchParams.get("end");
      if (end) ends.push(end);
      return fetch(url, init);
    };
    let refunded = false;
    const summary = await takeSnapshotNow(
      env.db,
      { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
      {
        clientOverrides: { fetch: watched },
        onPage: async (page) => {
          if (refunded || page.offset !== 100) return;
          refunded = true;
          // A player is refunded now, while the next pages are read.
          const body = JSON.parse(String(page.body)) as { recipients: { periods: { subscription_id: string }[] }[] };
          const subscriptionId = body.recipients[0]?.periods[0]?.subscription_id;
          await admin(env.emulator, "/refunds", { subscription_id: subscriptionId, period_seq: 1 });
        },
      },
    );
    expect(refunded).toBe(true);
    // Every page asked for the same end, a minute or more before now and before the window's own end.
    expect(new Set(ends).size).toBe(1);
    const readTo = Date.parse(ends[0] ?? "");
    expect(readTo).toBeLessThan(WINDOW.endMs);
    expect(readTo).toBeLessThanOrEqual(Date.now() - OPEN_WINDOW_MARGIN_MS);
    // One read, without the refund: 250 renewals, nothing reversed.
    expect(summary).toMatchObject({ windowClosed: false, recipients: 250, reversals: 0 });
    expect(summary.totals.reversedAttributedUsd).toBe("0.00");
    const pull = await env.db
      .selectFrom("snapshot_pull")
      .select(["status", "pages_fetched"])
      .where("id", "=", summary.pullId)
      .executeTakeFirstOrThrow();
    expect(pull).toEqual({ status: "complete", pages_fetched: 3 });
    // The snapshot is as of the moment read to: the refund's stale mark, made after it, would make it stale.
    const snapshot = await env.db
      .selectFrom("snapshot")
      .select("fetch_started_at")
      .where("id", "=", summary.snapshotId)
      .executeTakeFirstOrThrow();
    expect(snapshot.fetch_started_at.getTime()).toBe(readTo);
  });

  it("is not closed when the service's clock has passed its end but the pull read only up to before it", async () => {
    // Ends half a minute from now by this clock; the service's clock is two minutes ahead, past the end.
    const endingSoon = { startMs: WINDOW.startMs, endMs: Math.ceil((Date.now() + 30_000) / 1000) * 1000 };
    const serviceAhead: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      const text = (await response.text()).replace(
        /"generated_at":"[^"]*"/g,
        `"generated_at":"${new Date(endingSoon.endMs + 120_000).toISOString()}"`,
      );
      return new Response(text, { status: response.status, headers: response.headers });
    };
    const summary = await takeSnapshotNow(
      env.db,
      { gameId: GAME_ID, window: endingSoon, requestedBy: null, via: "test" },
      { clientOverrides: { fetch: serviceAhead } },
    );
    // The renewals of its last minute and a half were not read: the window stays open, and a later pull reads them.
    expect(summary.windowClosed).toBe(false);
  });
});
