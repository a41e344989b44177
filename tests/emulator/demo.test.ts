import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_BIG_RECIPIENT_ID,
  DEMO_GAME_ID,
  DEMO_GAME_SECRET,
  DEMO_UNRESOLVED_RECIPIENT_ID,
  generateDemoScenario,
} from "@/emulator/scenario/demo";
import { startClient, type Client } from "./helpers";

let client: Client;
let startMs = 0;

beforeAll(async () => {
  const started = performance.now();
  client = await startClient({ demo: { seed: 7 }, rateLimits: "off" }, DEMO_GAME_SECRET);
  startMs = performance.now() - started;
});
afterAll(() => client.close());

const report = (start: string, end: string, extra: Record<string, string | number> = {}) =>
  client.get("/api/subscriptions/reporting/attribution", { query: { start, end, limit: 100, ...extra } });

describe("demo data", () => {
  it("starts in under 3 seconds", () => {
    expect(startMs).toBeLessThan(3_000);
  });

  it("is deterministic by seed", () => {
    expect(generateDemoScenario({ seed: 7 })).toEqual(generateDemoScenario({ seed: 7 }));
    expect(generateDemoScenario({ seed: 7 })).not.toEqual(generateDemoScenario({ seed: 8 }));
  });

  it("answers the same report for the same seed in two emulators", async () => {
    const other = await startClient({ demo: { seed: 7 }, rateLimits: "off" }, DEMO_GAME_SECRET);
    try {
      const a = await report("2026-10-01", "2026-11-01");
      const b = await other.get("/api/subscriptions/reporting/attribution", { query: { start: "2026-10-01", end: "2026-11-01", limit: 100 } });
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
    for (const status of ["active", "canceled", "expired", "past_due", "awaiting_authentication", "pending_pcstore_authorization"]) {
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
          if (reversal.refund_events.length > 1 && reversal.refund_events.some((e: any) => e.is_full_refund)) composed = true;
        }
      }
    }
    expect(zero).toBe(true);
    expect(composed).toBe(true);
  });
});
