import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyHeldInContext } from "@/lib/snapshots/capture";
import { fetchWindow, type PageInfo, type PageRecord } from "@/lib/snapshots/fetch";
import { createReportSource, takeSnapshotNow } from "@/lib/snapshots/pull";
import type { FetchLike } from "@/lib/service/client";
import { parseWindow, windowToQuery } from "@/lib/time";
import { admin, buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * The next pages of a window are asked for while the current one is stored, and only pages taken in order become
 * part of the snapshot: an abort or a read started over leaves nothing of what was still in flight.
 */

const WINDOW = parseWindow("2026-05-01", "2026-06-01");
// 650 recipients: pages at offsets 0 to 600, the last one short.
const RECIPIENTS = 650;
const OFFSETS = [0, 100, 200, 300, 400, 500, 600];
const REPORT_ROUTE = "/api/subscriptions/reporting/attribution";
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: RECIPIENTS,
      renewalsPerRecipient: 2,
      start: "2026-05-01T00:00:00Z",
      end: "2026-06-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

/** The real fetch, noting the offset of each report request as it leaves, and waiting for all of them at the end. */
function watchedFetch(): { fetch: FetchLike; sent: { offset: number }[]; settled(): Promise<void> } {
  const sent: { offset: number }[] = [];
  const pending: Promise<unknown>[] = [];
  const watched: FetchLike = (url, init) => {
    sent.push({ offset: Number(new URL(url).searchParams.get("offset") ?? 0) });
    const answer = fetch(url, init);
    pending.push(answer.catch(() => null));
    return answer;
  };
  return {
    fetch: watched,
    sent,
    async settled() {
      await Promise.all(pending);
    },
  };
}

/** One turn of the event loop: whatever the read started by now has reached fetch. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const windowPages = (pages: readonly PageInfo[]) => pages.filter((p) => p.recipientPlayerId === null);

describe("reading a window's pages ahead", () => {
  it("has the next page's request on its way while the current page is stored, and stores pages in order", async () => {
    const watch = watchedFetch();
    const seenWhileStoring = new Map<number, number[]>();
    const summary = await takeSnapshotNow(
      env.db,
      { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
      {
        clientOverrides: { fetch: watch.fetch },
        onPage: async (page) => {
          await nextTurn();
          seenWhileStoring.set(
            page.offset,
            watch.sent.map((s) => s.offset),
          );
        },
      },
    );
    expect(summary.recipients).toBe(RECIPIENTS);
    expect(summary.pages).toBe(OFFSETS.length);
    // While page N was being stored, the request for page N + 1 had already left.
    for (const offset of OFFSETS.slice(0, -1)) {
      expect(seenWhileStoring.get(offset)).toContain(offset + 100);
    }
    // Never a page beyond the total, and every page asked for once.
    expect([...watch.sent.map((s) => s.offset)].sort((a, b) => a - b)).toEqual(OFFSETS);

    const stored = await env.db
      .selectFrom("snapshot_page")
      .select(["seq", "page_offset", "body"])
      .where("snapshot_id", "=", summary.snapshotId)
      .orderBy("seq")
      .execute();
    expect(stored.map((p) => [p.seq, p.page_offset])).toEqual(OFFSETS.map((offset, i) => [i + 1, offset]));
    for (const page of stored) {
      const body = (typeof page.body === "string" ? JSON.parse(page.body) : page.body) as {
        pagination: { offset: number };
      };
      expect(body.pagination.offset).toBe(page.page_offset);
    }
    await watch.settled();
  });

  it("stores no page asked for ahead when the pull is stopped", async () => {
    const watch = watchedFetch();
    const { source: watched } = await createReportSource(env.db, GAME_ID, { fetch: watch.fetch });
    const controller = new AbortController();
    const recorded: PageRecord[] = [];
    const read = fetchWindow(watched, WINDOW, {
      signal: controller.signal,
      onPage: async (page) => {
        recorded.push(page);
        if (page.offset !== 200) return;
        await nextTurn();
        controller.abort(new Error("stopped"));
      },
    });
    await expect(read).rejects.toThrow("stopped");
    await watch.settled();
    // Page 300 (and perhaps 400 after it) was asked for ahead when the pull stopped: never recorded, nothing after.
    const sent = watch.sent.map((s) => s.offset);
    expect(sent.slice(0, 4)).toEqual([0, 100, 200, 300]);
    expect(sent.slice(4).every((offset) => offset === 400)).toBe(true);
    expect(recorded.map((p) => [p.seq, p.offset])).toEqual([
      [1, 0],
      [2, 100],
      [3, 200],
    ]);
  });

  it("keeps no page of an abandoned read when the window changes while pages are in flight", async () => {
    const watch = watchedFetch();
    const { source } = await createReportSource(env.db, GAME_ID, { fetch: watch.fetch });
    const stored: PageRecord[] = [];
    const keptGiven: PageInfo[][] = [];
    let restarts = 0;
    let changed = false;
    const fetched = await fetchWindow(source, WINDOW, {
      onPage: async (page) => {
        stored.push(page);
        if (changed || page.offset !== 100) return;
        changed = true;
        // A figure of the window moves while the pages after this one are being read.
        const body = JSON.parse(String(page.body)) as { recipients: { periods: { period_id: number }[] }[] };
        const periodId = body.recipients[0]?.periods[0]?.period_id;
        await admin(env.emulator, `/periods/${periodId}`, { attributed_amount_usd: "1.95" }, "PATCH");
      },
      onRestart: async (kept) => {
        restarts += 1;
        keptGiven.push([...kept]);
        // Nothing of the abandoned read is kept (it started at the window's first page).
        stored.length = kept.length;
      },
    });
    await watch.settled();
    expect(restarts).toBe(1);
    expect(fetched.recipients).toHaveLength(RECIPIENTS);
    // What the snapshot keeps is the second read alone, page after page, all of it with the new figures.
    expect(windowPages(fetched.pages).map((p) => [p.seq, p.offset])).toEqual(
      OFFSETS.map((offset, i) => [i + 1, offset]),
    );
    expect(stored.map(({ body: _, ...info }) => info)).toEqual(fetched.pages);
    // Only what each page was (its place in the read): its text went to the store and is not held until the end.
    expect(keptGiven).toEqual([[]]);
    expect(fetched.pages.every((p) => !("body" in p))).toBe(true);
    const totals = stored.map((p) => JSON.stringify((JSON.parse(String(p.body)) as { totals: unknown }).totals));
    expect(new Set(totals).size).toBe(1);
    expect(totals[0]).toBe(JSON.stringify(fetched.totals));
  });
});

describe("a page answered 429", () => {
  it("is waited out and asked again before the next page is asked for", async () => {
    const sent: number[] = [];
    let limited = false;
    const { source } = await createReportSource(env.db, GAME_ID, {
      fetch: async (url, init) => {
        const offset = Number(new URL(url).searchParams.get("offset") ?? 0);
        // The service limits the second page once, asking for a second's wait.
        if (offset === 100 && !limited) {
          limited = true;
          await admin(env.emulator, "/faults", { route: REPORT_ROUTE, fault: "429", retry_after: 1, count: 1 });
        }
        sent.push(offset);
        return fetch(url, init);
      },
    });
    const fetched = await fetchWindow(source, WINDOW, { onPage: async () => {} });
    expect(windowPages(fetched.pages).map((p) => p.offset)).toEqual(OFFSETS);
    // The page after it left only once the limited page was answered: nothing was sent inside the wait.
    expect(sent.slice(0, 4)).toEqual([0, 100, 100, 200]);
  });
});

describe("capturing a page's text", () => {
  // Whatever a call opens (a kept-alive socket, a timer) carries the call's async context for as long as it lives.
  it("hands the text back with the page and keeps none of it in the call's context afterwards", async () => {
    let insideCall: (<R>(fn: () => R) => R) | null = null;
    const { source } = await createReportSource(env.db, GAME_ID, {
      fetch: (url, init) => {
        // What a socket opened for this request would keep: the async context of the call.
        insideCall = AsyncLocalStorage.snapshot();
        return fetch(url, init);
      },
    });
    const { report, raw } = await source.report({ ...windowToQuery(WINDOW), limit: 100, offset: 0 });
    expect(report.recipients).toHaveLength(100);
    expect(JSON.parse(String(raw)).recipients).toHaveLength(100);
    if (!insideCall) throw new Error("the request never reached fetch");
    expect((insideCall as <R>(fn: () => R) => R)(() => bodyHeldInContext())).toBeNull();
  });
});
