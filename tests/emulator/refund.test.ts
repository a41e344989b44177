import { describe, expect, it } from "vitest";
import { FIRST_PERIOD_FROM_MAY_15, oneSubscriptionScenario, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const refund = (sub: string, body: unknown) => client.post(`/api/subscriptions/${sub}/refund`, body);
const balanceOf = async (email: string) =>
  (await client.get(`/api/player-balances/player/by-email/${encodeURIComponent(email)}`)).body.balances[0]
    .total_balance;

describe("refund effects", () => {
  it("refunds the latest billed period in full to the card by default", async () => {
    const call = await refund(SUB.monthly, { client_request_id: "full-1", reason: "requested" });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      status: "refunded",
      idempotent_replay: false,
      client_request_id: "full-1",
      subscription_id: SUB.monthly,
      period_seq: 5,
      refunded_amount_usd: "10.00",
      total_refunded_amount_usd: "10.00",
      remaining_refundable_usd: "0.00",
      is_full_refund: true,
      funding_shape: "card",
      balance_delta_coins: "0.00",
      card_refunded_usd: "10.00",
      processor_refund_adopted: false,
      invo_fee_retained: true,
      partner_revenue_reversed_usd: "9.00",
      partner_revenue_reversal_mode: "full",
      reason: "requested",
      refunded_at: "2026-06-01T00:00:00Z",
      new_balance: "100.00",
      revenue_share_attribution: {
        recipient_player_id: 2,
        percent: "20.00",
        original_attributed_amount_usd: "1.80",
        refunded_attributed_amount_usd: "1.80",
        net_attributed_amount_usd: "0.00",
        settled_by_invo: false,
      },
    });
    expect(call.body.refund_key).toMatch(/^rfk_/);
    expect(call.body.transaction_id).toMatch(/^rtx_/);
    expect(call.body.processor_refund_reference).toMatch(/^re_/);
    // Dated behaviour: card_fee_charged_to_partner_usd is on receipts only since 2026-09-28.
    expect(call.body.card_fee_charged_to_partner_usd).toBeUndefined();
    // The period is refunded and no longer counts toward paid_through; the subscription is not cancelled.
    const sub = (await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription;
    expect(sub).toMatchObject({ status: "active", paid_through: "2026-05-15T00:00:00Z" });
  });

  it("records a card refund an earlier failed call issued once, as adopted, with its reference", async () => {
    expect((await client.admin(`/subscriptions/${SUB.monthly}/card-refund-fails-after-issue`, {})).status).toBe(200);
    // A partial refund returns no card money: untouched by the armed failure.
    expect((await refund(SUB.monthly, { client_request_id: "part-first", amount_usd: "1.00" })).status).toBe(200);
    const before = await balanceOf("alice@example.test");
    const failed = await refund(SUB.monthly, { client_request_id: "rest-1" });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error_code: "PROCESSOR_ERROR", error_code_public: "PROCESSOR_ERROR" });
    // Nothing recorded: the wallet is untouched and the period still has 9.00 to refund.
    expect(await balanceOf("alice@example.test")).toBe(before);
    const retried = await refund(SUB.monthly, { client_request_id: "rest-1" });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      idempotent_replay: false,
      refunded_amount_usd: "9.00",
      is_full_refund: true,
      card_refunded_usd: "10.00",
      processor_refund_adopted: true,
    });
    expect(retried.body.processor_refund_reference).toMatch(/^re_/);
    const replay = await refund(SUB.monthly, { client_request_id: "rest-1" });
    expect(replay.body).toMatchObject({
      idempotent_replay: true,
      processor_refund_adopted: true,
      processor_refund_reference: retried.body.processor_refund_reference,
    });
    // Armed once: the next full refund on another period is made at the first call, not adopted.
    const next = await refund(SUB.monthly, { client_request_id: "other-period", period_seq: 4 });
    expect(next.body).toMatchObject({ status: "refunded", processor_refund_adopted: false });
  });

  it("credits a partial refund to the wallet at 10 coins per USD and returns nothing to the card", async () => {
    const call = await refund(SUB.monthly, { client_request_id: "part-1", amount_usd: "3.33" });
    expect(call.body).toMatchObject({
      refunded_amount_usd: "3.33",
      remaining_refundable_usd: "6.67",
      is_full_refund: false,
      balance_delta_coins: "33.30",
      card_refunded_usd: "0.00",
      processor_refund_reference: null,
      partner_revenue_reversed_usd: "3.00",
      partner_revenue_reversal_mode: "prorata",
      new_balance: "133.30",
    });
    expect(call.body.revenue_share_attribution.refunded_attributed_amount_usd).toBe("0.60");
    expect(await balanceOf("alice@example.test")).toBe("133.30");
  });

  it(
    "composes partials to the cent: the completing refund " + "returns the card charge and reclaims the coins",
    async () => {
      const first = await refund(SUB.monthly, { client_request_id: "c-1", amount_usd: "3.33" });
      const second = await refund(SUB.monthly, { client_request_id: "c-2", amount_usd: "3.33" });
      const third = await refund(SUB.monthly, { client_request_id: "c-3", amount_usd: "3.34" });
      expect([
        first.body.partner_revenue_reversed_usd,
        second.body.partner_revenue_reversed_usd,
        third.body.partner_revenue_reversed_usd,
      ]).toEqual(["3.00", "3.00", "3.00"]);
      expect(third.body).toMatchObject({
        total_refunded_amount_usd: "10.00",
        remaining_refundable_usd: "0.00",
        is_full_refund: true,
        partner_revenue_reversal_mode: "full",
        card_refunded_usd: "10.00",
        balance_delta_coins: "-66.60",
        new_balance: "100.00",
      });
      expect(third.body.revenue_share_attribution).toMatchObject({
        original_attributed_amount_usd: "1.80",
        refunded_attributed_amount_usd: "1.80",
        net_attributed_amount_usd: "0.00",
      });
      const detail = await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`, {
        query: { status: "refunded" },
      });
      const period = detail.body.periods.find((p: any) => p.period_seq === 5);
      expect(period).toMatchObject({
        status: "refunded",
        partner_revenue_usd: "0.00",
        partner_revenue_reversed_usd: "9.00",
        partner_leg_reversed: true,
      });
    },
  );

  it("lets the wallet go below zero when reclaimed coins were spent", async () => {
    await refund(SUB.monthly, { client_request_id: "s-1", amount_usd: "5.00" });
    await client.admin("/players/balance", { game_id: "g1", player_id: 1, balance_coins: "0.00" });
    const last = await refund(SUB.monthly, { client_request_id: "s-2" });
    expect(last.body).toMatchObject({
      balance_delta_coins: "-50.00",
      new_balance: "-50.00",
      card_refunded_usd: "10.00",
    });
  });

  it("re-credits coins taken from the balance and refunds the card part of a mixed period", async () => {
    const call = await refund(SUB.mixed, { client_request_id: "m-1" });
    expect(call.body).toMatchObject({
      funding_shape: "mixed",
      card_refunded_usd: "15.00",
      balance_delta_coins: "50.00",
      new_balance: "150.00",
      partner_revenue_reversed_usd: "18.00",
    });
  });

  it("refunds a wallet-only period in coins", async () => {
    const call = await refund(SUB.wallet, { client_request_id: "w-1" });
    expect(call.body).toMatchObject({
      funding_shape: "wallet",
      card_refunded_usd: "0.00",
      balance_delta_coins: "50.00",
      new_balance: "550.00",
      revenue_share_attribution: null,
    });
  });

  it("refunds a wallet-covered pcstore period and refuses a period charged through the pcstore", async () => {
    const ok = await refund(SUB.pcstore, { client_request_id: "p-1" });
    expect(ok.body).toMatchObject({ period_seq: 2, funding_shape: "wallet", balance_delta_coins: "80.00" });
    expectError(
      await refund(SUB.pcstore, { client_request_id: "p-2", period_seq: 1 }),
      409,
      "PCSTORE_REFUND_NOT_SUPPORTED",
    );
  });
});

describe("default period", () => {
  it(
    "defaults to the most recent period still billed: a partly " +
      "refunded one stays, a fully refunded one is skipped",
    async () => {
      // Spec: period_seq defaults to "the most recent billed period"; "a partly refunded period is still billed".
      const partial = await refund(SUB.ninetyNine, { client_request_id: "d-1", amount_usd: "1.00" });
      expect(partial.body).toMatchObject({ period_seq: 4, total_refunded_amount_usd: "1.00" });
      const rest = await refund(SUB.ninetyNine, { client_request_id: "d-2" });
      expect(rest.body).toMatchObject({ period_seq: 4, refunded_amount_usd: "8.99", is_full_refund: true });
      // Period 4 is refunded now, no longer billed: the default moves to period 3.
      const next = await refund(SUB.ninetyNine, { client_request_id: "d-3" });
      expect(next.body).toMatchObject({ period_seq: 3, refunded_amount_usd: "9.99", is_full_refund: true });
      // Naming a fully refunded period is still ALREADY_REFUNDED.
      expectError(await refund(SUB.ninetyNine, { client_request_id: "d-4", period_seq: 4 }), 409, "ALREADY_REFUNDED");
    },
  );

  it("answers NO_PAID_PERIOD when every collected period has been refunded in full", async () => {
    expect((await refund(SUB.canceled, { client_request_id: "n-1" })).body).toMatchObject({
      period_seq: 1,
      is_full_refund: true,
    });
    const none = expectError(await refund(SUB.canceled, { client_request_id: "n-2" }), 409, "NO_PAID_PERIOD");
    expect(none.error).toContain("refunded in full");
  });
});

describe("refunds and cancel at period end", () => {
  it(
    "retires at once a subscription canceling at period end " + "when a full refund leaves its paid window in the past",
    async () => {
      const cancel = await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, {});
      expect(cancel.body).toMatchObject({ cancel_at_period_end: true, access_until: "2026-06-15T00:00:00Z" });
      await refund(SUB.monthly, { client_request_id: "cape-1" });
      const sub = (await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription;
      expect(sub).toMatchObject({
        status: "canceled",
        paid_through: "2026-05-15T00:00:00Z",
        ended_at: "2026-06-01T00:00:00Z",
        next_charge_at: null,
      });
      // Nothing is charged or retired at the old period end.
      const advanced = await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
      expect(advanced.body.retired).toBe(0);
      const latest = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).body
        .periods[0];
      expect(latest).toMatchObject({ period_seq: 5, status: "refunded" });
    },
  );

  it("retires at the new paid_through when a full refund moves it back to a date still ahead", async () => {
    const scenario = oneSubscriptionScenario({
      clock: "2026-06-01T00:00:00Z",
      subscription: {
        amount_usd: "10.00",
        created_at: "2026-05-15T00:00:00Z",
        status: "active",
        // The second window was paid ahead: paid through 2026-07-15.
        periods: [
          FIRST_PERIOD_FROM_MAY_15,
          {
            period_seq: 2,
            status: "paid",
            period_start: "2026-06-15",
            period_end: "2026-07-15",
            paid_at: "2026-05-31",
          },
        ],
      },
    });
    expect((await client.admin("/scenario", scenario)).status).toBe(200);
    expect((await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, {})).body.access_until).toBe(
      "2026-07-15T00:00:00Z",
    );
    await refund(SUB.monthly, { client_request_id: "ahead-1", period_seq: 2 });
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription).toMatchObject({
      status: "active",
      cancel_at_period_end: true,
      paid_through: "2026-06-15T00:00:00Z",
    });
    const advanced = await client.admin("/clock/advance", { to: "2026-06-20T00:00:00Z" });
    expect(advanced.body).toMatchObject({ retired: 1, renewals: 0 });
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription).toMatchObject({
      status: "canceled",
      ended_at: "2026-06-15T00:00:00Z",
    });
  });

  it("keeps charging a subscription that is not canceling after a full refund of its current period", async () => {
    await refund(SUB.monthly, { client_request_id: "keep-1" });
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription).toMatchObject({
      status: "active",
      next_charge_at: "2026-06-15T00:00:00Z",
    });
    expect((await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" })).body.renewals).toBeGreaterThanOrEqual(
      1,
    );
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription).toMatchObject({
      period_seq: 6,
      paid_through: "2026-07-15T00:00:00Z",
    });
  });
});
