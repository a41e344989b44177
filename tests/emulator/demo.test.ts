import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_BIG_RECIPIENT_ID,
  DEMO_GAME_ID,
  DEMO_GAME_SECRET,
  DEMO_UNRESOLVED_RECIPIENT_ID,
  generateDemoScenario,
} from "@/emulator/scenario/demo";
import { loadScenario } from "@/emulator/scenario/load";
import { startClient, type Client } from "./helpers";

let client: Client;

beforeAll(async () => {
  client = await startClient({ demo: { seed: 7 }, rateLimits: "off" }, DEMO_GAME_SECRET);
});
afterAll(() => client.close());

const report = (start: string, end: string, extra: Record<string, string | number> = {}) =>
  client.get("/api/subscriptions/reporting/attribution", { query: { start, end, limit: 100, ...extra } });

describe("demo data", () => {
  it("is deterministic by seed", () => {
    expect(generateDemoScenario({ seed: 7 })).toEqual(generateDemoScenario({ seed: 7 }));
    expect(generateDemoScenario({ seed: 7 })).not.toEqual(generateDemoScenario({ seed: 8 }));
  });

  it("starts at any clock, also minutes after a renewal falls due (`npm start` stamps it with the time)", () => {
    // At these clocks a period began less than twenty minutes before: it is paid, at the clock at the latest.
    for (const clock of ["2026-11-24T00:00:00Z", "2026-11-24T01:00:00Z", "2026-11-24T02:00:00Z"]) {
      const scenario = generateDemoScenario({ seed: 1, clock });
      const paid = (scenario.subscriptions ?? []).flatMap((s) => s.periods ?? []).flatMap((p) => p.paid_at ?? []);
      expect(paid.length).toBeGreaterThan(30_000);
      expect(paid.filter((at) => Date.parse(at) > Date.parse(clock))).toEqual([]);
      expect(paid).toContain(clock);
      expect(() => loadScenario(scenario)).not.toThrow();
    }
  });

  it("holds only states the service reaches: no charge after an ending, no price staged at the current one", () => {
    for (const seed of [1, 7]) {
      const subscriptions = generateDemoScenario({ seed }).subscriptions ?? [];
      const ended = subscriptions.filter((s) => s.ended_at);
      expect(ended.length).toBeGreaterThan(50);
      const paidAfterEnd = ended.flatMap((s) =>
        (s.periods ?? []).filter((p) => p.paid_at && Date.parse(p.paid_at) > Date.parse(s.ended_at ?? "")),
      );
      expect(paidAfterEnd).toEqual([]);
      const staged = subscriptions.filter((s) => s.pending_amount_usd);
      expect(staged.length).toBeGreaterThan(10);
      expect(staged.filter((s) => s.pending_amount_usd === s.amount_usd).map((s) => s.subscription_id)).toEqual([]);
    }
  });

  it("answers the same report for the same seed in two emulators", async () => {
    const other = await startClient({ demo: { seed: 7 }, rateLimits: "off" }, DEMO_GAME_SECRET);
    try {
      const a = await report("2026-10-01", "2026-11-01");
      const b = await other.get("/api/subscriptions/reporting/attribution", {
        query: { start: "2026-10-01", end: "2026-11-01", limit: 100 },
      });
      expect(b.body.totals).toEqual(a.body.totals);
      expect(b.body.recipients.map((r: any) => [r.recipient.player_id, r.net_attributed_usd])).toEqual(
        a.body.recipients.map((r: any) => [r.recipient.player_id, r.net_attributed_usd]),
      );
    } finally {
      await other.close();
    }
  });

  it("holds one sandbox game with about 3,000 subscriptions of every kind", async () => {
    const state = (await client.admin("/state")).body;
    expect(state.games).toEqual([expect.objectContaining({ game_id: DEMO_GAME_ID, status: "testing" })]);
    expect(state.counts.subscriptions).toBe(3000);
    const b = state.breakdown;
    expect(b.pcstore_subscriptions).toBeGreaterThan(0);
    expect(b.wallet_only_subscriptions).toBeGreaterThan(0);
    expect(b.staged_price_changes).toBeGreaterThan(0);
    expect(b.cancel_at_period_end).toBeGreaterThan(0);
    for (const status of [
      "active",
      "canceled",
      "expired",
      "past_due",
      "awaiting_authentication",
      "pending_pcstore_authorization",
    ]) {
      expect(b.subscriptions_by_status[status]).toBeGreaterThan(0);
    }
    expect(state.clock).toBe("2026-11-20T12:00:00Z");
  });

  it("spreads about 400 recipients over 18 months, with refunds of every kind", async () => {
    // A year holds more than 20,000 renewals: the service refuses it, and so does the demo.
    expect((await report("2025-11-20", "2026-11-21")).body.error_code).toBe("WINDOW_TOO_LARGE");
    const october = await report("2026-10-01", "2026-11-01");
    expect(october.body.totals.recipient_count).toBeGreaterThanOrEqual(370);
    expect(october.body.totals.recipient_count).toBeLessThanOrEqual(402);
    const half = await report("2026-05-20", "2026-11-21");
    expect(half.status).toBe(200);
    const t = half.body.totals;
    expect(t.unattributed_reasons.spend_order_not_found).toBeGreaterThan(0);
    expect(t.unattributed_reasons.attribution_malformed).toBeGreaterThan(0);
    expect(t.unattributed_reasons.no_revenue_share_configured).toBeGreaterThan(0);
    expect(t.reversals_without_receipts).toBeGreaterThan(0);
    expect(t.renewals_settled_then_fully_reversed).toBeGreaterThan(0);
    const earliest = await report("2025-05-20", "2025-06-20");
    expect(earliest.body.totals.renewals_settled).toBeGreaterThan(0);
    const unresolved = await report("2026-05-20", "2026-11-21", { recipient_player_id: DEMO_UNRESOLVED_RECIPIENT_ID });
    expect(unresolved.body.recipients[0].recipient).toMatchObject({ resolved: false, player_email: null });
  });

  it("has a recipient past the 500-line inline cap in a month, and refunds that net to zero in a month", async () => {
    const month = await report("2026-10-01", "2026-11-01");
    const big = month.body.recipients.find((r: any) => r.recipient.player_id === DEMO_BIG_RECIPIENT_ID);
    expect(big.renewal_count).toBeGreaterThan(500);
    expect(big.periods_truncated).toBe(true);
    expect(big.periods).toHaveLength(500);
    let zero = false;
    let composed = false;
    for (const m of ["2026-06", "2026-07", "2026-08", "2026-09", "2026-10"]) {
      const [y, mo] = m.split("-").map(Number) as [number, number];
      const next = mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, "0")}`;
      const r = await report(`${m}-01`, `${next}-01`);
      for (const recipient of r.body.recipients) {
        for (const reversal of recipient.reversals) {
          if (reversal.nets_to_zero_in_window) zero = true;
          if (reversal.refund_events.length > 1 && reversal.refund_events.some((e: any) => e.is_full_refund))
            composed = true;
        }
      }
    }
    expect(zero).toBe(true);
    expect(composed).toBe(true);
  });

  it(
    "funds card renewals the documented way: the wallet whole " +
      "when it covers, wallet and card only before 2026-09-17",
    async () => {
      const lines = async (start: string, end: string) =>
        (await report(start, end)).body.recipients
          .flatMap((r: any) => r.periods)
          .filter((line: any) => line.funding.rail === "card");
      const shapes = (found: any[]) => ({
        wallet: found.filter(
          (l) =>
            l.funding.card_charged_usd === "0.00" &&
            l.funding.balance_applied_coins === l.funding.amount_coins &&
            l.mint_order_id === null,
        ).length,
        card: found.filter(
          (l) =>
            l.funding.card_charged_usd !== "0.00" &&
            l.funding.balance_applied_coins === "0.00" &&
            l.mint_order_id !== null,
        ).length,
        mixed: found.filter((l) => l.funding.card_charged_usd !== "0.00" && l.funding.balance_applied_coins !== "0.00")
          .length,
      });
      const october = shapes(await lines("2026-10-01", "2026-11-01"));
      expect(october.wallet).toBeGreaterThan(0);
      expect(october.card).toBeGreaterThan(october.wallet);
      expect(october.mixed).toBe(0);
      const june = shapes(await lines("2026-06-01", "2026-07-01"));
      expect(june.wallet).toBeGreaterThan(0);
      expect(june.mixed).toBeGreaterThan(0);
    },
  );

  it("has periods refunded partly by period row only and partly with receipts", async () => {
    const scenario = generateDemoScenario({ seed: 7 });
    const mixed = (scenario.subscriptions ?? []).flatMap((sub) =>
      [...new Set((sub.refunds ?? []).map((r) => r.period_seq))]
        .filter((seq) => {
          const kinds = new Set(
            (sub.refunds ?? []).filter((r) => r.period_seq === seq).map((r) => r.receipt !== false),
          );
          return kinds.size === 2;
        })
        .map((seq) => ({ id: sub.subscription_id, seq })),
    );
    expect(mixed.length).toBeGreaterThan(0);
    const { id, seq } = mixed[0]!;
    const cycles = (
      await client.get(`/api/subscriptions/reporting/subscriptions/${id}/attribution`, { query: { limit: 100 } })
    ).body.periods;
    const periodId = cycles.find((p: any) => p.period_seq === seq).period_id;
    const detail = (await client.get(`/api/subscriptions/reporting/periods/${periodId}`)).body.refunds;
    expect(detail.basis).toBe("period_row");
    expect(detail.events.some((e: any) => e.refund_transaction_id === null)).toBe(true);
    expect(detail.events.some((e: any) => typeof e.refund_transaction_id === "string")).toBe(true);
  });

  // Last: it moves the clock of this file's emulator.
  it("renews live past the clock: by card in full, or from a wallet that covers the price", async () => {
    const advanced = await client.admin("/clock/advance", { by: "31d" });
    expect(advanced.body.renewals).toBeGreaterThan(2000);
    const live = await report("2026-11-20T12:00:00Z", "2026-12-22");
    const found = live.body.recipients
      .flatMap((r: any) => r.periods)
      .filter((line: any) => line.funding.rail === "card");
    expect(found.some((l: any) => l.funding.card_charged_usd === "0.00" && l.mint_order_id === null)).toBe(true);
    expect(found.some((l: any) => l.funding.balance_applied_coins === "0.00" && l.mint_order_id !== null)).toBe(true);
    expect(
      found.every((l: any) => l.funding.card_charged_usd === "0.00" || l.funding.balance_applied_coins === "0.00"),
    ).toBe(true);
  });
});
