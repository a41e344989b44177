import { describe, expect, it } from "vitest";
import { ATTRIBUTION_NOTICE as NOTICE, SECRET_TWO, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const cycles = (id: string, query: Record<string, string | number> = {}) =>
  client.get(`/api/subscriptions/reporting/subscriptions/${id}/attribution`, { query });
const periodIdOf = async (id: string, seq: number): Promise<number> =>
  (await cycles(id)).body.periods.find((p: any) => p.period_seq === seq).period_id;

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
