import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FetchLike } from "@/lib/service/client";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { parseWindow } from "@/lib/time";
import { buildScenario, GAME_ID, HEAVY_RECIPIENT_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * A recipient whose lines are cut at the inline cap is read again over sub-windows after its page. On the last page
 * no later page shows a change made meanwhile (a refund moving a period-row reversal into the window): the figures are
 * asked for once more, and a change reads the window again instead of failing the pull for good on lines that do not
 * add up to the first page's figures.
 */

const WINDOW = parseWindow("2026-07-01", "2026-08-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 5,
      renewalsPerRecipient: 2,
      heavyRecipientLines: 600,
      start: "2026-07-01T00:00:00Z",
      end: "2026-08-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

type Body = { totals: Record<string, unknown>; recipients: { periods: unknown[] }[] };

/**
 * The real fetch, where the window changes while the heavy recipient's lines are read: its first sub-window answers
 * one line fewer, and the figures asked for next have one more renewal. Once only: read again, it stands still.
 */
function changingFetch(seen: { changed: boolean }): FetchLike {
  let dropped = false;
  let rechecked = false;
  return async (url, init) => {
    const answer = await fetch(url, init);
    const asked = new URL(url);
    if (!asked.pathname.endsWith("/reporting/attribution") || !answer.ok) return answer;
    const filtered = asked.searchParams.get("recipient_player_id") === String(HEAVY_RECIPIENT_ID);
    if (filtered ? dropped : !dropped || rechecked) return answer;
    const body = (await answer.json()) as Body;
    if (filtered) {
      dropped = true;
      body.recipients[0]?.periods.pop();
    } else {
      rechecked = true;
      seen.changed = true;
      body.totals.renewals_settled = Number(body.totals.renewals_settled) + 1;
    }
    return new Response(JSON.stringify(body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  };
}

describe("a window changing while a recipient's lines are read after the last page", () => {
  it("is read again, and its snapshot published whole", async () => {
    const phases: string[] = [];
    const seen = { changed: false };
    const summary = await takeSnapshotNow(
      env.db,
      { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
      { clientOverrides: { fetch: changingFetch(seen) }, onProgress: (p) => phases.push(p.phase) },
    );
    expect(seen.changed).toBe(true);
    expect(phases).toContain("re-reading a window whose figures changed");
    expect(summary.recipients).toBe(6);
    expect(summary.totals.renewalsSettled).toBe(610);
  });
});
