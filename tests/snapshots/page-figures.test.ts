import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import type { FetchLike } from "@/lib/service/client";
import { parseWindow } from "@/lib/time";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * Every page of a window repeats its totals; a page whose totals differ from the first's means the window changed
 * while it was read, and the window is read again. The same figures written another way (keys in another order, an
 * amount with another zero) are not a change.
 */

const WINDOW = parseWindow("2026-05-01", "2026-06-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 250,
      renewalsPerRecipient: 2,
      start: "2026-05-01T00:00:00Z",
      end: "2026-06-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

type Totals = Record<string, unknown> & { unattributed_reasons: Record<string, number> };

/** The real fetch, with the totals of every page after the first written another way. */
const rewritingFetch =
  (rewrite: (totals: Totals) => Totals, rewritten: number[]): FetchLike =>
  async (url, init) => {
    const answer = await fetch(url, init);
    const offset = Number(new URL(url).searchParams.get("offset") ?? 0);
    if (!new URL(url).pathname.endsWith("/reporting/attribution") || offset === 0 || !answer.ok) return answer;
    const body = (await answer.json()) as { totals: Totals };
    body.totals = rewrite(body.totals);
    rewritten.push(offset);
    return new Response(JSON.stringify(body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  };

/** The keys in reverse order, the reasons' too, and each amount with one more zero. */
function sameFiguresOtherwise(totals: Totals): Totals {
  const reasons = Object.fromEntries(Object.entries(totals.unattributed_reasons).reverse());
  const entries = Object.entries(totals).map(([key, value]) => {
    if (key === "unattributed_reasons") return [key, reasons];
    return [key, typeof value === "string" ? `${value}0` : value];
  });
  return Object.fromEntries(entries.reverse()) as Totals;
}

async function pull(rewrite: (totals: Totals) => Totals) {
  const phases: string[] = [];
  const rewritten: number[] = [];
  const result = await takeSnapshotNow(
    env.db,
    { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
    { clientOverrides: { fetch: rewritingFetch(rewrite, rewritten) }, onProgress: (p) => phases.push(p.phase) },
  ).then(
    (summary) => ({ summary, error: null }),
    (error: unknown) => ({ summary: null, error }),
  );
  return { ...result, phases, rewritten };
}

describe("the totals each page repeats", () => {
  it("are the same figures in another key order or with another trailing zero: the window is read once", async () => {
    const { summary, error, phases, rewritten } = await pull(sameFiguresOtherwise);
    expect(error).toBeNull();
    expect(rewritten).toEqual([100, 200]);
    expect(phases).not.toContain("re-reading a window whose figures changed");
    expect(summary?.recipients).toBe(250);
    expect(summary?.totals.renewalsSettled).toBe(500);
  });

  it("differing in one count or one cent are a change, read again until the pull gives up", async () => {
    const oneMore = (totals: Totals): Totals => ({
      ...totals,
      unattributed_reasons: Object.fromEntries(
        Object.entries(totals.unattributed_reasons).map(([reason, count], index) => [
          reason,
          count + (index === 0 ? 1 : 0),
        ]),
      ),
    });
    const counted = await pull(oneMore);
    expect(counted.phases).toContain("re-reading a window whose figures changed");
    expect(String(counted.error)).toMatch(/changed between pages/);

    const oneCent = (totals: Totals): Totals => ({ ...totals, net_attributed_usd: "0.01" });
    const cent = await pull(oneCent);
    expect(cent.phases).toContain("re-reading a window whose figures changed");
    expect(String(cent.error)).toMatch(/changed between pages/);
  });
});
