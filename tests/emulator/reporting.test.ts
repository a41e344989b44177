import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureScenario, SECRET, SECRET_TWO, SUB } from "./fixture";
import { expectError, startClient, type Client } from "./helpers";

let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: fixtureScenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client.close());
beforeEach(async () => {
  await client.admin("/reset", {});
});

const report = (query: Record<string, string | number>) =>
  client.get("/api/subscriptions/reporting/attribution", { query });
const cycles = (id: string, query: Record<string, string | number> = {}) =>
  client.get(`/api/subscriptions/reporting/subscriptions/${id}/attribution`, { query });
const periodIdOf = async (id: string, seq: number): Promise<number> =>
  (await cycles(id)).body.periods.find((p: any) => p.period_seq === seq).period_id;

const NOTICE = {
  settled_by_invo: false,
  invo_has_paid_no_recipient: true,
  document_type: "attribution_report",
  not_a_remittance_advice: true,
  payer: "partner",
};

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

  describe("filters and pagination", () => {
    it("restricts recipients with recipient_player_id but keeps platform-wide totals", async () => {
      const all = await report({ start: "2026-04-01", end: "2026-05-01" });
      const only = await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: 777 });
      expect(only.body.totals).toEqual(all.body.totals);
      expect(only.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([777]);
      expect(only.body.pagination.total_count).toBe(1);
      expect(only.body.report.filters.recipient_player_id).toBe(777);
    });

    it("restricts everything to one subscription with subscription_id", async () => {
      const call = await report({ start: "2026-01-01", end: "2026-07-01", subscription_id: SUB.monthly });
      expect(call.body.totals).toMatchObject({
        renewals_settled: 5,
        settled_gross_usd: "50.00",
        gross_attributed_usd: "9.00",
        reversed_attributed_usd: "1.80",
      });
    });

    it("sorts recipients by net descending, then id ascending, and pages them; totals never paginate", async () => {
      const page1 = await report({ start: "2026-04-01", end: "2026-05-01", limit: 1 });
      expect(page1.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([2]);
      expect(page1.body.pagination).toEqual({ total_count: 2, limit: 1, offset: 0, has_more: true });
      const page2 = await report({ start: "2026-04-01", end: "2026-05-01", limit: 1, offset: 1 });
      expect(page2.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([777]);
      expect(page2.body.pagination.has_more).toBe(false);
      expect(page2.body.totals).toEqual(page1.body.totals);
      const beyond = await report({ start: "2026-04-01", end: "2026-05-01", offset: 5 });
      expect(beyond.body.recipients).toEqual([]);
    });

    it("clamps any integer limit into 1..100 silently and refuses bad pagination and filters", async () => {
      const limitOf = async (limit: string | number) => {
        const call = await report({ start: "2026-04-01", end: "2026-05-01", limit });
        expect(call.status).toBe(200);
        return [call.body.pagination.limit, call.body.recipients.length];
      };
      // Spec: "Default 50, silently clamped to 100, minimum 1."
      expect(await limitOf(500)).toEqual([100, 2]);
      expect(await limitOf("99999999999999999999")).toEqual([100, 2]);
      expect(await limitOf(100)).toEqual([100, 2]);
      expect(await limitOf(1)).toEqual([1, 1]);
      expect(await limitOf(0)).toEqual([1, 1]);
      expect(await limitOf(-1)).toEqual([1, 1]);
      expect(await limitOf("-99999999999999999999")).toEqual([1, 1]);
      expect((await report({ start: "2026-04-01", end: "2026-05-01" })).body.pagination.limit).toBe(50);
      for (const limit of ["x", "1.5", "", "1e3", " 5"]) {
        expectError(await report({ start: "2026-04-01", end: "2026-05-01", limit }), 400, "PAGINATION_INVALID");
      }
      expect((await report({ start: "2026-04-01", end: "2026-05-01", offset: 100000 })).status).toBe(200);
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: 100001 }), 400, "PAGINATION_INVALID");
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: -1 }), 400, "PAGINATION_INVALID");
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: "x" }), 400, "PAGINATION_INVALID");
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: "bob" }),
        400,
        "RECIPIENT_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: 0 }),
        400,
        "RECIPIENT_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", subscription_id: "S".repeat(51) }),
        400,
        "SUBSCRIPTION_ID_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", subscription_id: "nope" }),
        400,
        "SUBSCRIPTION_ID_INVALID",
      );
    });

    it("answers 404 SUBSCRIPTION_NOT_FOUND for an unknown subscription_id or another game's", async () => {
      // Spec: "Everything is scoped to the caller's game; ids of other tenants return 404."
      expectError(
        await report({ start: "2026-04-01", end: "2026-06-01", subscription_id: "SUB_1767225600_ZZZZ9999" }),
        404,
        "SUBSCRIPTION_NOT_FOUND",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-06-01", subscription_id: SUB.otherGame }),
        404,
        "SUBSCRIPTION_NOT_FOUND",
      );
      const own = await client.get("/api/subscriptions/reporting/attribution", {
        secret: SECRET_TWO,
        query: { start: "2026-04-01", end: "2026-06-01", subscription_id: SUB.otherGame },
      });
      expect(own.status).toBe(200);
      expect(own.body.totals.renewals_settled).toBe(1);
      // A known subscription with nothing in the window is an empty report, not a 404.
      const quiet = await report({ start: "2025-01-01", end: "2025-02-01", subscription_id: SUB.monthly });
      expect(quiet.status).toBe(200);
      expect(quiet.body.totals.renewals_settled).toBe(0);
    });
  });

  describe("refunds with receipts and refunds known only from the period row on one period", () => {
    // ninetyNine period 2: 9.99 paid 2026-03-10, partner 8.99, bob 15%: attributed 1.35.
    const refundAt = (at: string, amount: string, receipt: boolean) =>
      client.admin("/refunds", {
        subscription_id: SUB.ninetyNine,
        period_seq: 2,
        amount_usd: amount,
        refunded_at: at,
        receipt,
      });
    const bobReversal = (call: any) =>
      call.body.recipients
        .find((r: any) => r.recipient.player_id === 2)
        .reversals.find((r: any) => r.subscription_id === SUB.ninetyNine);

    it("keeps a closed window's report unchanged when a later refund is known only from the period row", async () => {
      expect((await refundAt("2026-04-05T00:00:00Z", "3.00", true)).status).toBe(201);
      const aprilBefore = await report({ start: "2026-04-01", end: "2026-05-01", limit: 100 });
      const receiptLine = bobReversal(aprilBefore);
      // round(1.35 × 3.00 / 9.99) = 0.41 of attribution; round(8.99 × 3.00 / 9.99) = 2.70 of partner revenue.
      expect(receiptLine).toMatchObject({
        reversal_basis: "refund_receipts",
        reversed_attributed_usd: "0.41",
        partner_revenue_reversed_usd: "2.70",
      });

      expect((await refundAt("2026-05-20T00:00:00Z", "2.00", false)).status).toBe(201);
      const aprilAfter = await report({ start: "2026-04-01", end: "2026-05-01", limit: 100 });
      expect(aprilAfter.body.totals).toEqual(aprilBefore.body.totals);
      expect(aprilAfter.body.recipients).toEqual(
        aprilBefore.body.recipients.map((r: any) => ({
          ...r,
          // Reference-only figures are cumulative up to the clock; everything of the window itself is unchanged.
          reversals: r.reversals.map((line: any) =>
            line.subscription_id === SUB.ninetyNine
              ? { ...line, refunded_to_date_usd: "5.00", latest_refund_at: "2026-05-20T00:00:00Z" }
              : line,
          ),
        })),
      );

      // The period-row portion is reported in May, wholly, without partner-revenue clawback.
      const may = await report({ start: "2026-05-01", end: "2026-06-01", limit: 100 });
      expect(may.body.totals).toMatchObject({
        reversed_attributed_usd: "0.27",
        partner_revenue_reversed_usd: "0.00",
        refund_events_in_window: 1,
        reversals_without_receipts: 1,
      });
      const rowLine = bobReversal(may);
      expect(rowLine).toMatchObject({
        reversal_basis: "period_row",
        reversed_attributed_usd: "0.27",
        partner_revenue_reversed_usd: "0.00",
      });
      expect(rowLine.refund_events).toEqual([
        {
          refunded_at: "2026-05-20T00:00:00Z",
          refunded_amount_usd: "2.00",
          cumulative_refunded_before_usd: "3.00",
          cumulative_refunded_after_usd: "5.00",
          reversed_attributed_usd: "0.27",
          partner_revenue_reversed_usd: "0.00",
          partner_revenue_reversal_basis: "none",
          is_full_refund: false,
          settled_by_invo: false,
        },
      ]);

      // The period detail shows the receipt event exactly and the period-row portion as one row.
      const id = await periodIdOf(SUB.ninetyNine, 2);
      const detail = (await client.get(`/api/subscriptions/reporting/periods/${id}`)).body;
      expect(detail.refunds).toMatchObject({
        refund_count: 2,
        refunded_to_date_usd: "5.00",
        basis: "period_row",
        latest_refund_at: "2026-05-20T00:00:00Z",
      });
      expect(
        detail.refunds.events.map((e: any) => [
          e.refunded_at,
          e.refunded_amount_usd,
          e.partner_revenue_reversed_usd,
          e.partner_revenue_reversal_basis,
        ]),
      ).toEqual([
        ["2026-04-05T00:00:00Z", "3.00", "2.70", "clawback"],
        ["2026-05-20T00:00:00Z", "2.00", "0.00", "none"],
      ]);
      expect(detail.refunds.events[0].refund_transaction_id).toMatch(/^rtx_/);
      expect(detail.refunds.events[1].refund_transaction_id).toBeNull();
      expect(detail.fee_legs).toMatchObject({ partner_revenue_reversed_usd: "2.70", partner_revenue_usd: "6.29" });

      // A receipt refund completing the period later leaves both earlier windows as they were.
      await client.post(`/api/subscriptions/${SUB.ninetyNine}/refund`, {
        client_request_id: "mixed-rest",
        period_seq: 2,
      });
      const mayAgain = await report({ start: "2026-05-01", end: "2026-06-01", limit: 100 });
      expect(mayAgain.body.totals).toEqual(may.body.totals);
      const june = await report({ start: "2026-06-01", end: "2026-07-01", limit: 100 });
      // The completing refund reverses what remains: 1.35 − 0.41 − 0.27 = 0.67.
      expect(bobReversal(june)).toMatchObject({ reversal_basis: "refund_receipts", reversed_attributed_usd: "0.67" });
      const whole = await report({ start: "2026-03-01", end: "2026-07-01", subscription_id: SUB.ninetyNine });
      const line = whole.body.recipients[0].reversals[0];
      expect(line.reversed_attributed_usd).toBe("1.35");
      expect(line.refund_events.map((e: any) => e.refunded_amount_usd)).toEqual(["3.00", "2.00", "4.99"]);
    });
  });
});

describe("GET /api/subscriptions/reporting/subscriptions/{id}/attribution", () => {
  it("lists cycles newest first with lifetime totals and the current revenue share", async () => {
    const call = await cycles(SUB.monthly);
    expect(call.status).toBe(200);
    expect(call.body.attribution_notice).toMatchObject(NOTICE);
    expect(call.body.subscription).toEqual({
      subscription_id: SUB.monthly,
      status: "active",
      item_id: "gold",
      item_name: "Gold Pass",
      current_amount_usd: "10.00",
      interval: "month",
      interval_count: 1,
      created_at: "2026-01-15T00:00:00Z",
    });
    expect(call.body.current_revenue_share).toMatchObject({
      recipient_player_id: 2,
      percent: "20.00",
      applies_to: "future_renewals_only",
      is_payout_basis: false,
      settled_by_invo: false,
    });
    expect(call.body.periods.map((p: any) => p.period_seq)).toEqual([5, 4, 3, 2, 1]);
    expect(call.body.lifetime_totals).toMatchObject({
      renewals_settled: 5,
      settled_gross_usd: "50.00",
      gross_attributed_usd: "9.00",
      reversed_attributed_usd: "1.80",
      net_attributed_usd: "7.20",
      renewals_settled_then_fully_reversed: 1,
      recipient_player_ids: [2],
      settled_by_invo: false,
    });
    const first = call.body.periods[4];
    expect(first).toMatchObject({
      status: "refunded",
      refund: { refunded_amount_usd: "10.00", refunded_at: "2026-02-20T00:00:00Z" },
      partner_revenue_usd: "0.00",
    });
  });

  it("includes never-paid cycles with attribution null and filters by status", async () => {
    const call = await cycles(SUB.pastDue);
    expect(call.body.periods[0]).toMatchObject({
      period_seq: 3,
      status: "pending",
      paid_at: null,
      attribution: null,
      invo_fee_usd: null,
      funding: null,
    });
    const paid = await cycles(SUB.pastDue, { status: "paid" });
    expect(paid.body.periods.map((p: any) => p.period_seq)).toEqual([2, 1]);
    const two = await cycles(SUB.monthly, { status: "paid,refunded", limit: 2, offset: 1 });
    expect(two.body.periods.map((p: any) => p.period_seq)).toEqual([4, 3]);
    expect(two.body.pagination).toEqual({ total_count: 5, limit: 2, offset: 1, has_more: true });
    expect((await cycles(SUB.wallet)).body.current_revenue_share).toBeNull();
  });

  it("refuses bad ids, statuses and pagination", async () => {
    expectError(await cycles("nope"), 400, "SUBSCRIPTION_ID_INVALID");
    expectError(await cycles("SUB_1767225600_ZZZZ9999"), 404, "SUBSCRIPTION_NOT_FOUND");
    expectError(await cycles(SUB.otherGame), 404, "SUBSCRIPTION_NOT_FOUND");
    expectError(await cycles(SUB.monthly, { status: "paid,live" }), 400, "STATUS_INVALID");
    expectError(await cycles(SUB.monthly, { limit: "ten" }), 400, "PAGINATION_INVALID");
    expectError(await cycles(SUB.monthly, { limit: "2.5" }), 400, "PAGINATION_INVALID");
    expectError(await cycles(SUB.monthly, { offset: 100001 }), 400, "PAGINATION_INVALID");
    expectError(await cycles(SUB.monthly, { offset: -1 }), 400, "PAGINATION_INVALID");
  });

  it("clamps any integer limit into 1..100 like the aggregate report", async () => {
    for (const [limit, clamped, lines] of [
      [1000, 100, 5],
      ["99999999999999999999", 100, 5],
      [0, 1, 1],
      [-5, 1, 1],
      [3, 3, 3],
    ] as const) {
      const call = await cycles(SUB.monthly, { limit });
      expect(call.status).toBe(200);
      expect([call.body.pagination.limit, call.body.periods.length]).toEqual([clamped, lines]);
    }
  });
});

describe("GET /api/subscriptions/reporting/periods/{period_id}", () => {
  it("shows the fee legs, refund events and charge of a refunded period", async () => {
    const id = await periodIdOf(SUB.monthly, 1);
    const call = await client.get(`/api/subscriptions/reporting/periods/${id}`);
    expect(call.status).toBe(200);
    expect(call.body.attribution_notice).toMatchObject(NOTICE);
    expect(call.body.period).toMatchObject({ period_id: id, period_seq: 1, status: "refunded" });
    expect(call.body.fee_legs).toMatchObject({
      invo_fee_usd: "1.00",
      invo_fee_percent: "10.00",
      partner_revenue_usd: "0.00",
      partner_revenue_settled_usd: "9.00",
      partner_revenue_reversed_usd: "9.00",
      partner_revenue_percent: "90.00",
      partner_leg_reversed: true,
      pass_through_fees_usd: "0.00",
      chargeback_fees_usd: "0.00",
      disputed_amount_held_usd: "0.00",
      card_fee_charged_to_partner_usd: "0.00",
      partner_revenue_after_fees_usd: "0.00",
    });
    expect(call.body.refunds).toMatchObject({
      refund_count: 1,
      refunded_to_date_usd: "10.00",
      latest_refund_at: "2026-02-20T00:00:00Z",
      basis: "refund_receipts",
    });
    expect(call.body.refunds.events[0]).toMatchObject({
      is_full_refund: true,
      reversed_attributed_usd: "1.80",
      partner_revenue_reversal_basis: "clawback",
      settled_by_invo: false,
    });
    expect(call.body.refunds.events[0].refund_transaction_id).toMatch(/^rtx_/);
    expect(call.body.charge).toEqual({
      attempts_for_period: 1,
      paid_attempt_no: 1,
      paid_attempt_at: "2026-01-15T00:00:00Z",
      outcome: "succeeded",
    });
    expect(call.body.current_revenue_share.recipient_player_id).toBe(2);
  });

  it("shows the period-row basis", async () => {
    const id = await periodIdOf(SUB.periodRow, 1);
    const call = await client.get(`/api/subscriptions/reporting/periods/${id}`);
    expect(call.body.refunds).toMatchObject({
      basis: "period_row",
      refunded_to_date_usd: "15.00",
      latest_refund_at: "2026-04-03T00:00:00Z",
    });
    expect(call.body.fee_legs.partner_revenue_reversed_usd).toBe("0.00");
  });

  it("reports the card fee charged to the partner for refunds since 2026-09-28", async () => {
    await client.admin("/clock/set", { at: "2026-10-01T00:00:00Z" });
    // A wallet short of every price: since 2026-09-17 the card pays the whole price and the wallet is left alone.
    await client.admin("/players/balance", { game_id: "g1", player_id: 1, balance_coins: "50.00" });
    await client.admin("/clock/set", { at: "2026-10-16T00:00:00Z" });
    const receipt = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
      client_request_id: "fee-1",
      amount_usd: "4.00",
    });
    // 4.00 refunded, 3.60 of partner revenue reversed: the service keeps its 0.40 fee, charged to the partner.
    expect(receipt.body).toMatchObject({
      partner_revenue_reversed_usd: "3.60",
      card_fee_charged_to_partner_usd: "0.40",
    });
    const id = (await cycles(SUB.monthly)).body.periods[0].period_id;
    const detail = await client.get(`/api/subscriptions/reporting/periods/${id}`);
    expect(detail.body.fee_legs).toMatchObject({
      card_fee_charged_to_partner_usd: "0.40",
      partner_revenue_usd: "5.40",
      partner_revenue_after_fees_usd: "5.00",
    });
    // Card renewals charged since 2026-09-17 carry balance_applied_coins 0.00.
    expect(detail.body.period).toMatchObject({ paid_at: "2026-10-15T00:00:00Z", period_seq: 10 });
    expect(detail.body.period.funding).toMatchObject({ balance_applied_coins: "0.00", card_charged_usd: "10.00" });
    // The wallet was not touched by the renewals; the partial refund credited 40.00 coins to it.
    expect(
      (await client.get("/api/player-balances/player/by-email/alice%40example.test")).body.balances[0].total_balance,
    ).toBe("90.00");
  });

  it("keeps the attributed snapshot when the recorded base drifts", async () => {
    const id = await periodIdOf(SUB.ninetyNine, 2);
    await client.admin(`/periods/${id}`, { base_usd: "9.00" }, "PATCH");
    const call = await client.get(`/api/subscriptions/reporting/periods/${id}`);
    expect(call.body.period.reconciliation).toEqual({
      checked: true,
      expected_base_usd: "8.99",
      recorded_base_usd: "9.00",
      base_matches_settled_fee: false,
    });
    expect(call.body.period.attribution.attributed_amount_usd).toBe("1.35");
  });

  it("refuses bad and foreign period ids", async () => {
    expectError(await client.get("/api/subscriptions/reporting/periods/abc"), 400, "INVALID_FIELD_VALUE");
    expectError(await client.get("/api/subscriptions/reporting/periods/0"), 400, "INVALID_FIELD_VALUE");
    expectError(await client.get("/api/subscriptions/reporting/periods/999999"), 404, "PERIOD_NOT_FOUND");
    const foreign = (
      await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.otherGame}/attribution`, {
        secret: SECRET_TWO,
      })
    ).body.periods[0].period_id;
    expectError(await client.get(`/api/subscriptions/reporting/periods/${foreign}`), 404, "PERIOD_NOT_FOUND");
    expect((await client.get(`/api/subscriptions/reporting/periods/${foreign}`, { secret: SECRET_TWO })).status).toBe(
      200,
    );
  });
});
