import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { windowReport } from "@/emulator/ledger/reporting";
import { cachedWindowCount, REPORT_CACHE_SIZE } from "@/emulator/ledger/report-cache";
import { beginChange, endChange, ledgerChanged } from "@/emulator/ledger/revision";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { DAY } from "@/emulator/time";
import { type Client, startClient } from "./helpers";

/**
 * The attribution report keeps a window's aggregate for its next pages: the pages must be those computed afresh, and
 * any change to the ledger between two pages must show in the next one.
 */

const SECRET = "gs_memo_secret";
const SUBSCRIPTIONS = 24;
const PRICES = ["4.99", "9.99", "14.99", "19.99", "9.99"];
const WINDOW = { start: "2026-06-01", end: "2026-08-01" };
const LIMIT = 3;

const at = (month: number, day: number) =>
  `2026-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}T00:00:00Z`;

/** 24 monthly subscriptions paid January to June on days 2 to 25, 20 recipients (some with two subscriptions). */
function scenario(): ScenarioInput {
  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const day = 2 + i;
    const periods = [1, 2, 3, 4, 5, 6].map((m) => ({
      period_seq: m,
      status: "paid" as const,
      period_start: at(m, day),
      period_end: at(m + 1, day),
      paid_at: at(m, day),
    }));
    subscriptions.push({
      game_id: "memo",
      subscription_id: `SUB_1767225600_MEMO${String(i).padStart(4, "0")}`,
      player_id: 1 + i,
      item_id: "pass",
      item_name: "Pass",
      amount_usd: PRICES[i % PRICES.length] as string,
      created_at: at(1, day),
      status: "active",
      card_id: 1 + i,
      revenue_share: { recipient_player_id: 10_001 + (i % 20), percent: "15.00" },
      periods,
      refunds: i === 7 ? [{ period_seq: 6, amount_usd: "1.00", refunded_at: at(6, 20), client_request_id: "m-7" }] : [],
    });
  }
  const players = Array.from({ length: SUBSCRIPTIONS }, (_, k) => ({
    game_id: "memo",
    player_id: k + 1,
    email: `p${k + 1}@memo.test`,
    date_joined: "2025-06-01",
  }));
  const cards = players.map((player) => ({
    game_id: "memo",
    player_id: player.player_id,
    card_id: player.player_id,
    last_four: "4242",
    exp_month: 1,
    exp_year: 2031,
    created_at: "2025-06-01",
  }));
  for (let r = 0; r < 20; r++)
    players.push({ game_id: "memo", player_id: 10_001 + r, email: `r${r}@memo.test`, date_joined: "2025-06-01" });
  return {
    clock: at(6, 28),
    games: [{ game_id: "memo", name: "Memo", status: "live", secret: SECRET }],
    players,
    cards,
    subscriptions,
  };
}

let client: Client;
beforeAll(async () => {
  client = await startClient({ scenario: scenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client?.close());
beforeEach(async () => {
  await client.admin("/reset", {});
});

async function page(offset: number, extra: Record<string, string | number> = {}): Promise<any> {
  const call = await client.get("/api/subscriptions/reporting/attribution", {
    query: { ...WINDOW, limit: LIMIT, offset, ...extra },
  });
  expect(call.status).toBe(200);
  return call.body;
}

/** Every page of the window, in order (fresh computations when `uncached`). */
async function allPages(uncached = false): Promise<any[]> {
  const pages = [];
  for (let offset = 0; ; offset += LIMIT) {
    if (uncached) ledgerChanged(client.emulator.ledger());
    const body = await page(offset);
    pages.push(body);
    if (!body.pagination.has_more) return pages;
  }
}

const lineOf = (pages: any[], playerId: number) =>
  pages.flatMap((p) => p.recipients).find((r: any) => r.recipient.player_id === playerId);

describe("attribution report: a window's aggregate kept across its pages", () => {
  it("serves the same pages as fresh computations, and filters by recipient from the same figures", async () => {
    const cached = await allPages();
    expect(cachedWindowCount(client.emulator.ledger())).toBe(1);
    expect(cached.length).toBe(7);
    const fresh = await allPages(true);
    expect(cached).toEqual(fresh);
    const recipients = cached.flatMap((p) => p.recipients);
    expect(recipients.length).toBe(20);
    expect(new Set(recipients.map((r: any) => r.recipient.player_id)).size).toBe(20);
    for (const p of cached) expect(p.totals).toEqual(cached[0].totals);
    const one = await page(0, { recipient_player_id: 10_008 });
    expect(one.totals).toEqual(cached[0].totals);
    expect(one.recipients).toEqual([lineOf(cached, 10_008)]);
    expect(lineOf(cached, 10_008).reversed_attributed_usd).not.toBe("0.00");
  });

  it("shows a refund made between two pages in the next page", async () => {
    const first = await page(0);
    const before = first.totals;
    const line = lineOf(await allPages(), 10_010);
    expect(line.reversed_attributed_usd).toBe("0.00");
    const refund = await client.admin("/refunds", {
      subscription_id: "SUB_1767225600_MEMO0009",
      period_seq: 6,
      amount_usd: "4.99",
    });
    expect(refund.status).toBe(201);
    const second = await page(LIMIT);
    expect(second.totals.refund_events_in_window).toBe(before.refund_events_in_window + 1);
    expect(second.totals.reversed_attributed_usd).not.toBe(before.reversed_attributed_usd);
    expect(lineOf(await allPages(), 10_010).reversed_attributed_usd).not.toBe("0.00");
  });

  it("shows renewals settled by the clock between two pages in the next page", async () => {
    const before = (await page(0)).totals;
    const advanced = await client.admin("/clock/advance", { to: at(7, 5) });
    expect(advanced.body.renewals).toBe(4);
    const second = await page(LIMIT);
    expect(second.totals.renewals_settled).toBe(before.renewals_settled + 4);
  });

  it("shows recorded figures overwritten between two pages in the next page", async () => {
    const first = await page(0);
    const periodId = first.recipients[0].periods[0].period_id;
    const patched = await client.admin(`/periods/${periodId}`, { attributed_amount_usd: "100.00" }, "PATCH");
    expect(patched.status).toBe(200);
    const second = await page(LIMIT);
    expect(second.totals.gross_attributed_usd).not.toBe(first.totals.gross_attributed_usd);
  });

  it("keeps a bounded number of windows, and nothing computed while a change runs", () => {
    const ledger = client.emulator.ledger();
    const game = ledger.games.get("memo");
    if (!game) throw new Error("no game");
    const start = Date.UTC(2026, 0, 1);
    const query = { recipientPlayerId: null, subscriptionId: null, limit: LIMIT, offset: 0 };
    const totals = [];
    for (let k = 0; k < REPORT_CACHE_SIZE + 3; k++) {
      const body = windowReport(ledger, game, { ...query, start, end: start + (30 + k) * DAY });
      totals.push((body.totals as { renewals_settled: number }).renewals_settled);
      expect(cachedWindowCount(ledger)).toBe(Math.min(k + 1, REPORT_CACHE_SIZE));
    }
    expect(totals[0]).toBeGreaterThan(0);
    ledgerChanged(ledger);
    beginChange(ledger);
    windowReport(ledger, game, { ...query, start, end: start + 200 * DAY });
    expect(cachedWindowCount(ledger)).toBe(0);
    endChange(ledger);
    windowReport(ledger, game, { ...query, start, end: start + 200 * DAY });
    expect(cachedWindowCount(ledger)).toBe(1);
  });
});
