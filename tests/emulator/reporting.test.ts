import { describe, expect, it } from "vitest";
import { ATTRIBUTION_NOTICE as NOTICE, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const report = (query: Record<string, string | number>) =>
  client.get("/api/subscriptions/reporting/attribution", { query });

describe("GET /api/subscriptions/reporting/attribution", () => {
  it("reports the totals of a month keyed on settlement", async () => {
    const call = await report({ start: "2026-05-01", end: "2026-06-01" });
    expect(call.status).toBe(200);
    expect(call.body.status).toBe("success");
    expect(call.body.attribution_notice).toMatchObject(NOTICE);
    expect(typeof call.body.attribution_notice.statement).toBe("string");
    expect(call.body.report).toMatchObject({
      game_id: "g1",
      generated_at: "2026-06-01T00:00:00Z",
      window: { start: "2026-05-01T00:00:00Z", end: "2026-06-01T00:00:00Z", end_exclusive: true },
      filters: { recipient_player_id: null, subscription_id: null },
    });
    expect(typeof call.body.report.derivation).toBe("object");
    expect(typeof call.body.report.known_limits).toBe("object");
    expect(call.body.totals).toEqual({
      renewals_settled: 7,
      settled_gross_usd: "94.99",
      invo_fee_usd: "9.50",
      partner_revenue_settled_usd: "85.49",
      partner_revenue_reversed_usd: "0.00",
      partner_revenue_usd: "85.49",
      renewals_with_attribution: 5,
      renewals_without_attribution: 2,
      unattributed_reasons: {
        no_revenue_share_configured: 2,
        spend_order_not_found: 0,
        attribution_not_recorded: 0,
        attribution_malformed: 0,
      },
      gross_attributed_usd: "11.07",
      reversed_attributed_usd: "0.00",
      net_attributed_usd: "11.07",
      renewals_settled_then_fully_reversed: 0,
      refund_events_in_window: 0,
      reversals_without_receipts: 0,
      recipient_count: 1,
      settled_by_invo: false,
    });
    const bob = call.body.recipients[0];
    expect(bob).toMatchObject({
      recipient: {
        player_id: 2,
        resolved: true,
        player_email: "bob@example.test",
        player_name: "Bob",
        identity_id: "idn_2",
      },
      renewal_count: 5,
      subscription_count: 5,
      gross_attributed_usd: "11.07",
      reversed_attributed_usd: "0.00",
      net_attributed_usd: "11.07",
      first_paid_at: "2026-05-01T00:00:00Z",
      last_paid_at: "2026-05-20T00:00:00Z",
      settled_by_invo: false,
      periods_truncated: false,
      reversals: [],
      reversal_count: 0,
      reversals_truncated: false,
    });
    expect(bob.periods).toHaveLength(5);
    expect(
      bob.periods.every((line: any) => line.settled_by_invo === false && line.attribution.settled_by_invo === false),
    ).toBe(true);
    const mixed = bob.periods.find((line: any) => line.subscription_id === SUB.mixed);
    expect(mixed).toMatchObject({
      amount_usd: "20.00",
      invo_fee_usd: "2.00",
      partner_revenue_settled_usd: "18.00",
      funding: {
        amount_coins: "200.00",
        balance_applied_coins: "50.00",
        card_charged_usd: "15.00",
        rail: "card",
        pcstore_charged_usd: "0.00",
      },
      attribution: {
        recipient_player_id: 2,
        percent_at_renewal: "25.00",
        base_usd: "18.00",
        attributed_amount_usd: "4.50",
      },
      attribution_unavailable_reason: null,
      reconciliation: {
        checked: true,
        expected_base_usd: "18.00",
        recorded_base_usd: "18.00",
        base_matches_settled_fee: true,
      },
    });
  });

  it("reports a period-row reversal wholly in the window of the latest refund, without partner clawback", async () => {
    const call = await report({ start: "2026-04-01", end: "2026-05-01" });
    expect(call.body.totals).toMatchObject({
      renewals_settled: 7,
      gross_attributed_usd: "9.27",
      reversed_attributed_usd: "1.35",
      net_attributed_usd: "7.92",
      partner_revenue_reversed_usd: "0.00",
      refund_events_in_window: 1,
      reversals_without_receipts: 1,
      recipient_count: 2,
    });
    const [bob, unresolved] = call.body.recipients;
    expect(bob.net_attributed_usd).toBe("5.22");
    expect(bob.reversals).toHaveLength(1);
    expect(bob.reversals[0]).toMatchObject({
      subscription_id: SUB.periodRow,
      period_seq: 1,
      settled_in_this_window: false,
      amount_usd: "30.00",
      originally_attributed_usd: "2.70",
      refunded_to_date_usd: "15.00",
      latest_refund_at: "2026-04-03T00:00:00Z",
      reversed_attributed_usd: "1.35",
      partner_revenue_reversed_usd: "0.00",
      reversal_basis: "period_row",
      nets_to_zero_in_window: false,
      settled_by_invo: false,
    });
    expect(bob.reversals[0].refund_events).toEqual([
      expect.objectContaining({
        refunded_at: "2026-04-03T00:00:00Z",
        refunded_amount_usd: "15.00",
        partner_revenue_reversal_basis: "none",
        settled_by_invo: false,
      }),
    ]);
    expect(bob.reversals[0].note).toContain("period row");
    // A recipient id with no player record reports resolved false and null identity fields.
    expect(unresolved.recipient).toEqual({
      player_id: 777,
      resolved: false,
      player_email: null,
      player_name: null,
      identity_id: null,
    });
    expect(unresolved.net_attributed_usd).toBe("2.70");
    // The March window, where the first period-row refund happened, shows nothing of it.
    const march = await report({ start: "2026-03-01", end: "2026-04-01" });
    expect(march.body.totals.reversals_without_receipts).toBe(0);
  });

  it("reports a receipt reversal in the window of the refund, not of the settlement", async () => {
    const feb = await report({ start: "2026-02-01", end: "2026-03-01" });
    expect(feb.body.totals).toMatchObject({
      renewals_settled: 2,
      gross_attributed_usd: "3.15",
      reversed_attributed_usd: "1.80",
      net_attributed_usd: "1.35",
      partner_revenue_reversed_usd: "9.00",
      refund_events_in_window: 1,
    });
    const reversal = feb.body.recipients[0].reversals[0];
    expect(reversal).toMatchObject({
      period_seq: 1,
      settled_in_this_window: false,
      reversal_basis: "refund_receipts",
      reversed_attributed_usd: "1.80",
    });
    expect(reversal.refund_events[0]).toMatchObject({
      refunded_amount_usd: "10.00",
      cumulative_refunded_before_usd: "0.00",
      cumulative_refunded_after_usd: "10.00",
      reversed_attributed_usd: "1.80",
      partner_revenue_reversed_usd: "9.00",
      partner_revenue_reversal_basis: "clawback",
      is_full_refund: true,
    });
    // The settlement window keeps its gross whatever happened later.
    const jan = await report({ start: "2026-01-01", end: "2026-02-01" });
    expect(jan.body.totals).toMatchObject({
      renewals_settled: 2,
      gross_attributed_usd: "1.80",
      reversed_attributed_usd: "0.00",
    });
  });

  it("marks a period settled and fully refunded inside the window as netting to zero", async () => {
    await client.post(`/api/subscriptions/${SUB.mixed}/refund`, { client_request_id: "nz-1" });
    const call = await report({ start: "2026-05-15", end: "2026-06-02" });
    expect(call.body.totals.renewals_settled_then_fully_reversed).toBe(1);
    const reversal = call.body.recipients[0].reversals.find((r: any) => r.subscription_id === SUB.mixed);
    expect(reversal).toMatchObject({
      settled_in_this_window: true,
      nets_to_zero_in_window: true,
      reversed_attributed_usd: "4.50",
    });
    expect(reversal.note).toContain("pay nothing");
    const june = await report({ start: "2026-06-01", end: "2026-07-01" });
    expect(june.body.recipients[0].reversals[0]).toMatchObject({
      settled_in_this_window: false,
      nets_to_zero_in_window: false,
    });
  });

  describe("window edges", () => {
    const monthlyIn = async (start: string, end: string) => {
      const call = await report({ start, end, subscription_id: SUB.monthly });
      expect(call.status).toBe(200);
      return call.body.totals.renewals_settled as number;
    };

    it("includes the start and excludes the end", async () => {
      expect(await monthlyIn("2026-05-15T00:00:00Z", "2026-05-16T00:00:00Z")).toBe(1);
      expect(await monthlyIn("2026-05-14T00:00:00Z", "2026-05-15T00:00:00Z")).toBe(0);
      expect(await monthlyIn("2026-05-15T00:00:00.001Z", "2026-05-16T00:00:00Z")).toBe(0);
    });

    it("reads a date as 00:00:00Z and a naive datetime as UTC", async () => {
      expect(await monthlyIn("2026-05-15", "2026-05-16")).toBe(1);
      expect(await monthlyIn("2026-05-14", "2026-05-15")).toBe(0);
      expect(await monthlyIn("2026-05-15T00:00:00", "2026-05-15T00:00:01")).toBe(1);
      const call = await report({ start: "2026-05-15T00:00:00", end: "2026-05-16" });
      expect(call.body.report.window).toEqual({
        start: "2026-05-15T00:00:00Z",
        end: "2026-05-16T00:00:00Z",
        end_exclusive: true,
      });
    });

    it("honours an explicit offset", async () => {
      // 02:00+02:00 is 00:00Z: included; 00:00-01:00 is 01:00Z: after the renewal.
      expect(await monthlyIn("2026-05-15T02:00:00+02:00", "2026-05-16T00:00:00Z")).toBe(1);
      expect(await monthlyIn("2026-05-15T00:00:00-01:00", "2026-05-16T00:00:00Z")).toBe(0);
      const call = await report({ start: "2026-05-15T02:00:00+02:00", end: "2026-05-16T00:00:00+0000" });
      expect(call.body.report.window.start).toBe("2026-05-15T00:00:00Z");
    });

    it("refuses bad windows with WINDOW_INVALID and over-long ones with WINDOW_TOO_LONG", async () => {
      expectError(await report({ end: "2026-06-01" }), 400, "WINDOW_INVALID");
      expectError(await report({ start: "2026-05-01" }), 400, "WINDOW_INVALID");
      expectError(await report({ start: "yesterday", end: "2026-06-01" }), 400, "WINDOW_INVALID");
      expectError(await report({ start: "2026-02-30", end: "2026-06-01" }), 400, "WINDOW_INVALID");
      expectError(await report({ start: "2026-06-01", end: "2026-06-01" }), 400, "WINDOW_INVALID");
      expectError(await report({ start: "2026-06-02", end: "2026-06-01" }), 400, "WINDOW_INVALID");
      expect((await report({ start: "2025-05-01", end: "2026-06-05" })).status).toBe(200); // 400 days exactly
      expectError(await report({ start: "2025-05-01", end: "2026-06-05T00:00:01Z" }), 400, "WINDOW_TOO_LONG");
    });
  });
});
