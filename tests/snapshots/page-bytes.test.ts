import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import type { FetchLike } from "@/lib/service/client";
import { parseWindow } from "@/lib/time";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * Each page is stored as the bytes the service sent, never decoded and encoded again: names in any script, and
 * characters outside the Basic Multilingual Plane, come back byte for byte.
 */

const WINDOW = parseWindow("2026-05-01", "2026-06-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 150,
      renewalsPerRecipient: 1,
      start: "2026-05-01T00:00:00Z",
      end: "2026-06-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

/** The month's snapshot taken through `fetch`, with its stored pages in order. */
async function snapshotThrough(fetch: FetchLike) {
  const summary = await takeSnapshotNow(
    env.db,
    { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
    { clientOverrides: { fetch } },
  );
  const stored = await env.db
    .selectFrom("snapshot_page")
    .select(["page_offset", "body"])
    .where("snapshot_id", "=", summary.snapshotId)
    .orderBy("seq")
    .execute();
  return { summary, stored };
}

describe("a page's body", () => {
  it("is stored as the bytes sent, non-ASCII names included", async () => {
    const sent = new Map<number, Buffer>();
    // The service's answers with every recipient named in other scripts (a name only: no figure moves).
    const fetchRenamed: FetchLike = async (url, init) => {
      const answer = await fetch(url, init);
      if (!url.includes("/reporting/attribution") || answer.status !== 200) return answer;
      const text = (await answer.text()).replaceAll('"Creator ', '"Créateur 創作者 🎮 ');
      const bytes = Buffer.from(text, "utf8");
      sent.set(Number(new URL(url).searchParams.get("offset") ?? 0), bytes);
      return new Response(bytes, { status: 200, headers: { "content-type": "application/json" } });
    };
    const { summary, stored } = await snapshotThrough(fetchRenamed);
    expect(summary.pages).toBe(2);
    expect(stored.map((page) => page.page_offset)).toEqual([0, 100]);
    for (const page of stored) {
      const bytes = sent.get(page.page_offset);
      expect(bytes?.toString("utf8")).toContain("Créateur 創作者 🎮 ");
      expect(Buffer.from(page.body, "utf8").equals(bytes as Buffer)).toBe(true);
    }
    const names = await env.db
      .selectFrom("snapshot_recipient")
      .select("player_name")
      .where("snapshot_id", "=", summary.snapshotId)
      .execute();
    expect(names).toHaveLength(150);
    for (const { player_name } of names) expect(player_name).toMatch(/^Créateur 創作者 🎮 \d+$/);
  });

  it("with a byte-order mark or a byte not UTF-8, is stored as the text read, and the month publishes", async () => {
    // Each answer led by a byte-order mark; the first page's names with a stray Latin-1 byte (0xE9, é) each.
    const fetchDamaged: FetchLike = async (url, init) => {
      const answer = await fetch(url, init);
      if (!url.includes("/reporting/attribution") || answer.status !== 200) return answer;
      const first = new URL(url).searchParams.get("offset") === "0";
      const parts = (await answer.text()).split('"Creator ');
      const body = first
        ? parts.flatMap((part, i) =>
            i === 0 ? [Buffer.from(part)] : [Buffer.from('"Cr'), Buffer.from([0xe9]), Buffer.from(`ator ${part}`)],
          )
        : [Buffer.from(parts.join('"Creator '))];
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ...body]);
      return new Response(bytes, { status: 200, headers: { "content-type": "application/json" } });
    };
    const { stored } = await snapshotThrough(fetchDamaged);
    // The mark dropped and the byte replaced, as the page was parsed: each stored body reads as JSON again.
    for (const page of stored) expect(JSON.parse(page.body).recipients).toHaveLength(page.page_offset === 0 ? 100 : 50);
    expect(stored[0]?.body).toContain('"Cr\uFFFDator ');
    expect(stored[1]?.body).toContain('"Creator ');
  });
});
