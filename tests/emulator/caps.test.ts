import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { DAY, formatInstant, MINUTE } from "@/emulator/time";
import { expectError, startClient, type Client } from "./helpers";

const SECRET = "gs_caps";

const subId = (n: number) => `SUB_1767225600_${String(n).padStart(8, "0")}`;

/** Recipient 2 holds 501 renewals and 501 refunds in May 2026; recipient 3 exactly 500 renewals. */
function capScenario(): ScenarioInput {
  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = [];
  for (let i = 0; i < 1001; i++) {
    const recipient = i < 501 ? 2 : 3;
    const paid = Date.UTC(2026, 4, 1) + i * 20 * MINUTE;
    subscriptions.push({
      game_id: "g",
      subscription_id: subId(i),
      player_id: 1,
      item_id: "gold",
      item_name: "Gold",
      amount_usd: "10.00",
      created_at: formatInstant(paid),
      status: "active",
      revenue_share: { recipient_player_id: recipient, percent: "10.00" },
      periods: [
        {
          period_seq: 1,
          status: "paid",
          period_start: formatInstant(paid),
          period_end: formatInstant(paid + 31 * DAY),
          paid_at: formatInstant(paid),
        },
      ],
      refunds:
        recipient === 2
          ? [{ period_seq: 1, amount_usd: "1.00", refunded_at: formatInstant(Date.UTC(2026, 4, 28) + i * MINUTE) }]
          : [],
    });
  }
  return {
    clock: "2026-06-01T00:00:00Z",
    games: [{ game_id: "g", name: "Caps", status: "live", secret: SECRET }],
    players: [
      { game_id: "g", player_id: 1, email: "payer@example.test", date_joined: "2025-01-01" },
      { game_id: "g", player_id: 2, email: "two@example.test", date_joined: "2025-01-01" },
      { game_id: "g", player_id: 3, email: "three@example.test", date_joined: "2025-01-01" },
    ],
    subscriptions,
  };
}

/** 60 daily subscriptions with 334 renewals each in 2025 (20,040 settled) and a refund of each in January 2026. */
function largeScenario(): ScenarioInput {
  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = [];
  const start = Date.UTC(2025, 0, 1);
  for (let s = 0; s < 60; s++) {
    const periods = [];
    const refunds = [];
    for (let d = 0; d < 334; d++) {
      const at = start + d * DAY + s * MINUTE;
      periods.push({
        period_seq: d + 1,
        status: "paid" as const,
        period_start: formatInstant(at),
        period_end: formatInstant(at + DAY),
        paid_at: formatInstant(at),
      });
      refunds.push({
        period_seq: d + 1,
        amount_usd: "0.01",
        refunded_at: formatInstant(Date.UTC(2026, 0, 2) + (s * 334 + d) * 1000),
      });
    }
    subscriptions.push({
      game_id: "g",
      subscription_id: subId(s),
      player_id: 1,
      item_id: "daily",
      item_name: "Daily",
      amount_usd: "1.00",
      interval: "day",
      created_at: formatInstant(start + s * MINUTE),
      status: "active",
      revenue_share: { recipient_player_id: 2, percent: "50.00" },
      periods,
      refunds,
    });
  }
  return {
    clock: "2026-02-01T00:00:00Z",
    games: [{ game_id: "g", name: "Large", status: "live", secret: SECRET }],
    players: [{ game_id: "g", player_id: 1, email: "payer@example.test", date_joined: "2024-01-01" }],
    subscriptions,
  };
}

let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: capScenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client.close());

describe("inline evidence caps", () => {
  it("caps renewal lines and reversals at 500 per recipient with the truncation flags", async () => {
    const call = await client.get("/api/subscriptions/reporting/attribution", {
      query: { start: "2026-05-01", end: "2026-06-01" },
    });
    expect(call.status).toBe(200);
    // Sorted by net: recipient 3 (500 × 0.90 = 450.00) before recipient 2 (405.81).
    const [three, two] = call.body.recipients;
    expect([three.recipient.player_id, two.recipient.player_id]).toEqual([3, 2]);
    expect(two).toMatchObject({
      renewal_count: 501,
      periods_truncated: true,
      reversal_count: 501,
      reversals_truncated: true,
    });
    expect(two.periods).toHaveLength(500);
    expect(two.reversals).toHaveLength(500);
    // The figures cover every line, not only the inline ones: 501 × 0.90 gross, 501 × 0.09 reversed.
    expect(two).toMatchObject({
      gross_attributed_usd: "450.90",
      reversed_attributed_usd: "45.09",
      net_attributed_usd: "405.81",
    });
    expect(three).toMatchObject({
      renewal_count: 500,
      periods_truncated: false,
      reversal_count: 0,
      reversals_truncated: false,
    });
    expect(three.periods).toHaveLength(500);
    expect(call.body.totals).toMatchObject({ renewals_settled: 1001, refund_events_in_window: 501 });
  });
});

describe("report size limits", () => {
  it("refuses more than 20,000 settled renewals or refunded renewals with WINDOW_TOO_LARGE", async () => {
    const large = await client.admin("/scenario", largeScenario());
    expect(large.status).toBe(200);
    const settled = expectError(
      await client.get("/api/subscriptions/reporting/attribution", {
        query: { start: "2025-01-01", end: "2026-01-01" },
      }),
      400,
      "WINDOW_TOO_LARGE",
    );
    expect(settled).toMatchObject({ settled_renewals: 20040, max_renewals: 20000 });
    const reversals = expectError(
      await client.get("/api/subscriptions/reporting/attribution", {
        query: { start: "2026-01-01", end: "2026-02-01" },
      }),
      400,
      "WINDOW_TOO_LARGE",
    );
    expect(reversals).toMatchObject({ reversals: 20040, max_rows: 20000 });
    const half = await client.get("/api/subscriptions/reporting/attribution", {
      query: { start: "2025-01-01", end: "2025-07-01" },
    });
    expect(half.status).toBe(200);
    expect(half.body.totals.renewals_settled).toBe(60 * 181);
    // Lifetime totals of one subscription stay under the cap.
    const one = await client.get(`/api/subscriptions/reporting/subscriptions/${subId(0)}/attribution`);
    expect(one.body.lifetime_totals).toMatchObject({ renewals_settled: 334, refund_events_in_window: 334 });
  });
});
