import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSubWindows } from "@/db/queries/snapshot-evidence";
import { getSnapshot } from "@/db/queries/snapshots";
import { sumMoney } from "@/lib/money";
import { fetchWindow } from "@/lib/snapshots/fetch";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { createReportSource } from "@/lib/snapshots/pull-run";
import { serviceClientForGame } from "@/lib/service/for-game";
import type { AttributionTotals } from "@/lib/service/schemas";
import { parseWindow, windowToQuery } from "@/lib/time";
import { admin, buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * A window over the report's cap ("at most 20,000 settled renewals ... per report") answers WINDOW_TOO_LARGE; the
 * snapshot reads it as adjacent sub-windows and merges them.
 */

const WINDOW = parseWindow("2026-01-01", "2026-03-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 205,
      renewalsPerRecipient: 100,
      reversals: 400,
      // Three days: periods settled just before a sub-window boundary are refunded after it.
      refundDelayMs: 3 * 86_400_000,
      start: "2026-01-01T00:00:00Z",
      end: "2026-02-25T00:00:00Z",
      // After the window: a second version is compared with the first.
      clock: "2026-03-10T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

const ADDITIVE_AMOUNTS = [
  "settled_gross_usd",
  "invo_fee_usd",
  "partner_revenue_settled_usd",
  "partner_revenue_reversed_usd",
  "partner_revenue_usd",
  "gross_attributed_usd",
  "reversed_attributed_usd",
  "net_attributed_usd",
] as const;

describe("a window over the renewal cap", () => {
  it("is split into sub-windows whose additive totals sum to the merged snapshot's", async () => {
    const summary = await takeSnapshotNow(env.db, { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" });
    expect(summary.builtFrom).toBe("split");
    expect(summary.totals.renewalsSettled).toBe(20_500);
    expect(summary.recipients).toBe(205);
    expect(summary.lines).toBe(20_500);

    const parts = (await listSubWindows(env.db, { gameId: GAME_ID, snapshotId: summary.snapshotId })).filter(
      (p) => p.scope === "window",
    );
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts.every((p) => p.reason === "window_too_large")).toBe(true);
    expect(parts[0]?.window.startMs).toBe(WINDOW.startMs);
    expect(parts.at(-1)?.window.endMs).toBe(WINDOW.endMs);

    // Each part read on its own, straight from the service.
    const client = await serviceClientForGame(env.db, GAME_ID);
    const totals: AttributionTotals[] = [];
    for (const part of parts)
      totals.push((await client.getAttributionReport({ ...windowToQuery(part.window), limit: 1 })).totals);

    const snapshot = await getSnapshot(env.db, { gameId: GAME_ID, snapshotId: summary.snapshotId });
    if (!snapshot) throw new Error("snapshot missing");
    const merged: Record<string, string> = {
      settled_gross_usd: snapshot.totals.settledGrossUsd,
      invo_fee_usd: snapshot.totals.invoFeeUsd,
      partner_revenue_settled_usd: snapshot.totals.partnerRevenueSettledUsd,
      partner_revenue_reversed_usd: snapshot.totals.partnerRevenueReversedUsd,
      partner_revenue_usd: snapshot.totals.partnerRevenueUsd,
      gross_attributed_usd: snapshot.totals.grossAttributedUsd,
      reversed_attributed_usd: snapshot.totals.reversedAttributedUsd,
      net_attributed_usd: snapshot.totals.netAttributedUsd,
    };
    for (const key of ADDITIVE_AMOUNTS) {
      expect(sumMoney(totals.map((t) => t[key])).toFixed(2), key).toBe(merged[key]);
    }
    expect(totals.reduce((n, t) => n + t.renewals_settled, 0)).toBe(snapshot.totals.renewalsSettled);
    expect(totals.reduce((n, t) => n + t.refund_events_in_window, 0)).toBe(snapshot.totals.refundEventsInWindow);
    expect(totals.reduce((n, t) => n + t.renewals_with_attribution, 0)).toBe(snapshot.totals.renewalsWithAttribution);
    // 20,500 renewals at 10.00: gross 205,000.00; 20% of 9.00 each.
    expect(snapshot.totals.settledGrossUsd).toBe("205000.00");
    expect(snapshot.totals.grossAttributedUsd).toBe("36900.00");

    // Not additive: a period settled in one part and refunded in the next nets to zero in the whole window only.
    const perParts = totals.reduce((n, t) => n + t.renewals_settled_then_fully_reversed, 0);
    // Every reversed period is refunded in full inside the window (three days after settling, before its end).
    expect(snapshot.totals.refundEventsInWindow).toBeGreaterThan(350);
    expect(snapshot.totals.renewalsSettledThenFullyReversed).toBe(snapshot.totals.refundEventsInWindow);
    expect(perParts).toBeLessThan(snapshot.totals.renewalsSettledThenFullyReversed);
    // Recipients appear in several parts but once in the snapshot.
    expect(totals.reduce((n, t) => n + t.recipient_count, 0)).toBeGreaterThan(snapshot.totals.recipientCount);
    expect(snapshot.checks.every((c) => c.ok)).toBe(true);
  });

  it("keeps the lines of the parts already read when a later part is read again, each line once", async () => {
    let firstPart: number | null = null;
    let patched: number | null = null;
    const phases: string[] = [];
    // What the service sent for each place in the snapshot: a page read again after the restart takes its place.
    const served = new Map<number, { window: string; recipient: number | null; offset: number; body: string }>();
    const summary = await takeSnapshotNow(
      env.db,
      { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" },
      {
        // One page after another, so that the change lands between two pages of the second part.
        lookahead: 0,
        onProgress: (progress) => phases.push(progress.phase),
        onPage: async (page) => {
          const { window, recipientPlayerId: recipient, offset } = page;
          served.set(page.seq, {
            window: `${window.startMs}-${window.endMs}`,
            recipient,
            offset,
            body: String(page.body),
          });
          if (page.recipientPlayerId !== null || patched !== null) return;
          firstPart ??= page.window.startMs;
          if (page.window.startMs === firstPart || page.offset !== 0) return;
          // The second part's first page: one of its lines changes before its next page is read.
          const body = JSON.parse(String(page.body)) as { recipients: { periods: { period_id: number }[] }[] };
          patched = body.recipients[0]?.periods[0]?.period_id ?? null;
          await admin(env.emulator, `/periods/${patched}`, { attributed_amount_usd: "1.95" }, "PATCH");
        },
      },
    );
    expect(patched).not.toBeNull();
    expect(summary.lines).toBe(20_500);
    const lines = await env.db
      .selectFrom("snapshot_line")
      .select(["period_id", "attributed_amount_usd"])
      .where("snapshot_id", "=", summary.snapshotId)
      .execute();
    expect(lines).toHaveLength(20_500);
    expect(new Set(lines.map((line) => line.period_id)).size).toBe(20_500);
    expect(lines.find((line) => Number(line.period_id) === patched)?.attributed_amount_usd).toBe("1.95");
    expect(phases).toContain("re-reading a window whose figures changed");
    // The lines written part by part are compared with the first version's in the database once all are written: the
    // patched line is the drift (with its recipient's figures and the totals it moves).
    expect(summary.drift.status).toBe("drift");
    const drift = await env.db
      .selectFrom("snapshot_drift")
      .select(["entity", "entity_key", "field"])
      .where("snapshot_id", "=", summary.snapshotId)
      .execute();
    expect(drift).toContainEqual({ entity: "line", entity_key: String(patched), field: "attributed_amount_usd" });
    // Each difference once: the parts' merged recipients are compared once (the line moved its recipient's figures).
    const differences = drift.map((entry) => `${entry.entity} ${entry.entity_key} ${entry.field}`);
    expect(new Set(differences).size).toBe(differences.length);
    expect(drift.some((entry) => entry.entity === "recipient")).toBe(true);

    // The stored pages are exactly those the service sent, text for text, each in its place, none of the abandoned
    // read's left over.
    const pages = await env.db
      .selectFrom("snapshot_page")
      .select(["seq", "window_start", "window_end", "recipient_player_id", "page_offset", "body"])
      .where("snapshot_id", "=", summary.snapshotId)
      .orderBy("seq")
      .execute();
    expect(pages).toHaveLength(summary.pages);
    expect(pages.map((page) => page.seq)).toEqual([...served.keys()].sort((a, b) => a - b));
    for (const page of pages) {
      const sent = served.get(page.seq);
      expect({
        window: `${page.window_start.getTime()}-${page.window_end.getTime()}`,
        recipient: page.recipient_player_id === null ? null : Number(page.recipient_player_id),
        offset: page.page_offset,
        body: page.body,
      }).toEqual(sent);
    }
  });
  it("unpaced, asks for each part's first page as the part before it begins, storing pages in order", async () => {
    const sent: { start: string; offset: number }[] = [];
    const { source } = await createReportSource(env.db, GAME_ID, {
      fetch: (url, init) => {
        const query = new URL(url).searchParams;
        sent.push({ start: query.get("start") ?? "", offset: Number(query.get("offset") ?? 0) });
        return fetch(url, init);
      },
    });
    const read = async (together: boolean) => {
      const recorded: { start: number; offset: number; recipient: number | null }[] = [];
      let startsWhenFirstStored: Set<string> | null = null;
      const fetched = await fetchWindow(source, WINDOW, {
        lookaheadTogether: together,
        onPage: (page) => {
          recorded.push({ start: page.window.startMs, offset: page.offset, recipient: page.recipientPlayerId });
          startsWhenFirstStored ??= new Set(sent.map((s) => s.start));
        },
      });
      return { fetched, recorded, startsWhenFirstStored: startsWhenFirstStored as Set<string> | null };
    };
    const apart = await read(false);
    sent.length = 0;
    const together = await read(true);
    // The first part's first page stored: the window asked whole (too large), the first part, and the second part.
    expect(together.startsWhenFirstStored?.size).toBe(2);
    expect(apart.fetched.pages.length).toBeGreaterThan(2);
    expect(together.recorded).toEqual(apart.recorded);
    expect(together.fetched.totals).toEqual(apart.fetched.totals);
    expect(together.fetched.recipients).toEqual(apart.fetched.recipients);

    // Stopped at the first page stored: the next part's first page, asked for ahead, is never stored.
    const stop = new AbortController();
    const recorded: number[] = [];
    const stopped = fetchWindow(source, WINDOW, {
      lookaheadTogether: true,
      signal: stop.signal,
      onPage: (page) => {
        recorded.push(page.window.startMs);
        stop.abort(new Error("stopped"));
      },
    });
    await expect(stopped).rejects.toThrow("stopped");
    expect(recorded).toEqual([WINDOW.startMs]);
  });
  it("hands each page of a part's lines over as it is read and keeps only their facts", async () => {
    const { source } = await createReportSource(env.db, GAME_ID);
    const handed: number[] = [];
    const pagesRead: number[] = [];
    const fetched = await fetchWindow(source, WINDOW, {
      onPart: (recipients, pages) => {
        pagesRead.push(pages);
        for (const recipient of recipients) {
          for (const line of recipient.periods) {
            // Each line whole when handed over: what the store writes.
            expect(line.item_name).toEqual(expect.any(String));
            handed.push(line.period_id);
          }
        }
      },
    });
    expect(fetched.linesWritten).toBe(true);
    const kept = fetched.recipients.flatMap((recipient) => recipient.periods);
    expect(kept).toHaveLength(20_500);
    expect(new Set(kept.map((line) => line.period_id))).toEqual(new Set(handed));
    expect(handed).toHaveLength(20_500);
    // Once a page, with the pages read by then: every page of the parts' recipients, none twice.
    const recipientPages = fetched.pages.filter((page) => page.recipientPlayerId === null);
    expect(pagesRead).toEqual([...new Set(pagesRead)].sort((a, b) => a - b));
    expect(pagesRead).toHaveLength(recipientPages.length);
    expect(pagesRead.length).toBeGreaterThan(fetched.subWindows.filter((w) => w.scope === "window").length);
    for (const line of kept)
      expect(Object.keys(line).sort()).toEqual(["attribution", "paid_at", "period_id", "subscription_id"]);

    // Without anyone to hand the parts to, the lines stay whole.
    const whole = await fetchWindow(source, WINDOW);
    expect(whole.linesWritten).toBe(false);
    expect(whole.recipients.flatMap((recipient) => recipient.periods).every((line) => "item_name" in line)).toBe(true);
  });
});
