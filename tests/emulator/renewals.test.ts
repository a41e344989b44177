import { describe, expect, it } from "vitest";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { FIRST_PERIOD_FROM_MAY_15, oneSubscriptionScenario, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const sub = async (id: string) => (await client.get(`/api/subscriptions/${id}`)).body.subscription;
const cycles = async (id: string) =>
  (await client.get(`/api/subscriptions/reporting/subscriptions/${id}/attribution`)).body.periods;

/** One subscription priced `amount`, last agreed at `agreed`, with a staged price, paid through 2026-06-15. */
function priceScenario(amount: string, agreed: string, pending: string): ScenarioInput {
  return oneSubscriptionScenario({
    clock: "2026-06-01T00:00:00Z",
    subscription: {
      amount_usd: amount,
      last_agreed_amount_usd: agreed,
      pending_amount_usd: pending,
      created_at: "2026-05-15T00:00:00Z",
      status: "active",
      revenue_share: { recipient_player_id: 1, percent: "10.00" },
      periods: [FIRST_PERIOD_FROM_MAY_15],
    },
  });
}

/** One card subscription of 10.00 whose next charge falls on `chargeAt`; its player holds `balance` coins. */
function fundingScenario(chargeAt: string, balance: string): ScenarioInput {
  const day = 24 * 3600 * 1000;
  const at = Date.parse(chargeAt);
  const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  return oneSubscriptionScenario({
    clock: iso(at - day),
    balanceCoins: balance,
    subscription: {
      amount_usd: "10.00",
      created_at: iso(at - 30 * day),
      status: "active",
      revenue_share: { recipient_player_id: 1, percent: "10.00" },
      periods: [
        {
          period_seq: 1,
          status: "paid",
          period_start: iso(at - 30 * day),
          period_end: chargeAt,
          paid_at: iso(at - 30 * day),
        },
      ],
      next_charge_at: chargeAt,
    },
  });
}

describe("funding of card renewals", () => {
  const renew = async (chargeAt: string, balance: string) => {
    expect((await client.admin("/scenario", fundingScenario(chargeAt, balance))).status).toBe(200);
    await client.admin("/clock/advance", { to: chargeAt });
    const [line] = await cycles(SUB.monthly);
    expect(line).toMatchObject({ period_seq: 2, status: "paid", paid_at: chargeAt });
    const wallet = (await client.get("/api/player-balances/player/by-email/p%40example.test")).body.balances[0]
      .total_balance;
    return { line, wallet };
  };

  // Spec: "saved cards fund subscriptions when the member's balance runs short".
  it.each(["2026-06-15T00:00:00Z", "2026-10-15T00:00:00Z"])(
    "lets a wallet that covers the price pay it whole (%s): no card charge, no mint order",
    async (chargeAt) => {
      const { line, wallet } = await renew(chargeAt, "100.00");
      expect(line.funding).toEqual({
        amount_coins: "100.00",
        balance_applied_coins: "100.00",
        card_charged_usd: "0.00",
        rail: "card",
        pcstore_charged_usd: "0.00",
      });
      expect(line.mint_order_id).toBeNull();
      expect(line.transaction_id).toMatch(/^txn_/);
      expect(wallet).toBe("0.00");
      // Refunded, the period goes back to the wallet: funding shape wallet, nothing to a card.
      const receipt = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
        client_request_id: "wallet-paid",
      });
      expect(receipt.body).toMatchObject({
        period_seq: 2,
        funding_shape: "wallet",
        card_refunded_usd: "0.00",
        balance_delta_coins: "100.00",
        processor_refund_reference: null,
        new_balance: "100.00",
      });
    },
  );

  // Spec, Versioning: "since 2026-09-17 card-funded renewal periods carry balance_applied_coins of 0.00".
  it(
    "charges the card the whole price since 2026-09-17 " + "when the wallet runs short, leaving the wallet alone",
    async () => {
      const { line, wallet } = await renew("2026-09-17T00:00:00Z", "99.99");
      expect(line.funding).toMatchObject({ balance_applied_coins: "0.00", card_charged_usd: "10.00", rail: "card" });
      expect(line.mint_order_id).toMatch(/^ord_/);
      expect(wallet).toBe("99.99");
      const receipt = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "card-paid" });
      expect(receipt.body).toMatchObject({
        funding_shape: "card",
        card_refunded_usd: "10.00",
        balance_delta_coins: "0.00",
      });
    },
  );

  it("before 2026-09-17 drew what the wallet held and charged the card the shortfall", async () => {
    const { line, wallet } = await renew("2026-09-16T23:59:59Z", "40.00");
    expect(line.funding).toMatchObject({ balance_applied_coins: "40.00", card_charged_usd: "6.00", rail: "card" });
    expect(line.mint_order_id).toMatch(/^ord_/);
    expect(wallet).toBe("0.00");
    const receipt = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "mixed-paid" });
    expect(receipt.body).toMatchObject({
      funding_shape: "mixed",
      card_refunded_usd: "6.00",
      balance_delta_coins: "40.00",
    });
  });

  it("charges the card alone when the wallet is empty, on any date", async () => {
    const { line } = await renew("2026-06-15T00:00:00Z", "0.00");
    expect(line.funding).toMatchObject({ balance_applied_coins: "0.00", card_charged_usd: "10.00" });
  });
});

describe("clock and renewals", () => {
  it("reports and moves the emulator clock; refuses to go back", async () => {
    expect((await client.admin("/clock")).body.now).toBe("2026-06-01T00:00:00Z");
    const moved = await client.admin("/clock/advance", { by: "36h" });
    expect(moved.body.now).toBe("2026-06-02T12:00:00Z");
    expect(moved.body.from).toBe("2026-06-01T00:00:00Z");
    expect((await client.admin("/clock/set", { at: "2026-06-01T00:00:00Z" })).body.error_code).toBe(
      "ADMIN_CLOCK_BACKWARDS",
    );
    expect((await client.admin("/clock/advance", { by: "soon" })).status).toBe(400);
  });

  it(
    "charges at next_charge_at: period_seq advances, the window moves and attribution is recorded at the percent in " +
      "force",
    async () => {
      const result = await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
      expect(result.body.renewals).toBeGreaterThanOrEqual(1);
      expect(await sub(SUB.monthly)).toMatchObject({
        period_seq: 6,
        current_period_start: "2026-06-15T00:00:00Z",
        current_period_end: "2026-07-15T00:00:00Z",
        next_charge_at: "2026-07-15T00:00:00Z",
        paid_through: "2026-07-15T00:00:00Z",
      });
      const [latest] = await cycles(SUB.monthly);
      expect(latest).toMatchObject({
        period_seq: 6,
        status: "paid",
        paid_at: "2026-06-15T00:00:00Z",
        amount_usd: "10.00",
        invo_fee_usd: "1.00",
        partner_revenue_settled_usd: "9.00",
        attribution: { percent_at_renewal: "20.00", base_usd: "9.00", attributed_amount_usd: "1.80" },
      });
      expect(latest.transaction_id).toMatch(/^txn_/);
      expect(latest.mint_order_id).toMatch(/^ord_/);
      // The new renewal is in June's report.
      const june = await client.get("/api/subscriptions/reporting/attribution", {
        query: { start: "2026-06-15", end: "2026-06-16", subscription_id: SUB.monthly },
      });
      expect(june.body.totals).toMatchObject({ renewals_settled: 1, gross_attributed_usd: "1.80" });
    },
  );

  it("runs every renewal that falls due over a long advance, in order", async () => {
    await client.admin("/clock/advance", { to: "2026-09-16T00:00:00Z" });
    const seqs = (await cycles(SUB.monthly)).map((p: any) => [p.period_seq, p.paid_at]);
    expect(seqs.slice(0, 4)).toEqual([
      [9, "2026-09-15T00:00:00Z"],
      [8, "2026-08-15T00:00:00Z"],
      [7, "2026-07-15T00:00:00Z"],
      [6, "2026-06-15T00:00:00Z"],
    ]);
  });

  it("applies a staged price at the next renewal and bills the current window at the old price", async () => {
    await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "12.00" });
    await client.admin("/clock/advance", { to: "2026-07-16T00:00:00Z" });
    const [july, june] = await cycles(SUB.monthly);
    expect(june).toMatchObject({ period_seq: 6, amount_usd: "12.00", invo_fee_usd: "1.20" });
    expect(july).toMatchObject({ period_seq: 7, amount_usd: "12.00" });
    expect(await sub(SUB.monthly)).toMatchObject({ amount_usd: "12.00", pending_amount_usd: null });
  });

  it("never applies an increase to more than double the agreed price", async () => {
    await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "20.01" });
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    const [june] = await cycles(SUB.monthly);
    expect(june.amount_usd).toBe("10.00");
    expect(await sub(SUB.monthly)).toMatchObject({ amount_usd: "10.00", pending_amount_usd: "20.01" });
  });

  it("applies exactly double the agreed price", async () => {
    await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "20.00" });
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("20.00");
  });

  it("never applies a price above 500.00 even within double", async () => {
    await client.admin("/scenario", priceScenario("300.00", "300.00", "500.01"));
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("300.00");
    expect((await sub(SUB.monthly)).pending_amount_usd).toBe("500.01");
    await client.admin("/scenario", priceScenario("300.00", "300.00", "500.00"));
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("500.00");
  });

  it("applies a price lowered to one still above 500.00: only an increase is never applied", async () => {
    await client.admin("/scenario", priceScenario("700.00", "700.00", "600.00"));
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("600.00");
    // Above the price last agreed and above 500.00, it is an increase however the current price stands.
    await client.admin("/scenario", priceScenario("700.00", "400.00", "600.00"));
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("700.00");
  });

  it("measures double against the price last agreed, not the current one", async () => {
    await client.admin("/scenario", priceScenario("10.00", "4.00", "9.00"));
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0].amount_usd).toBe("10.00");
  });

  it("enters dunning on a decline, retries 1, 3 and 5 days after, then expires", async () => {
    await client.admin(`/subscriptions/${SUB.monthly}/charge-outcomes`, { outcomes: ["decline", "decline"] });
    await client.admin("/clock/advance", { to: "2026-06-15T00:00:01Z" });
    expect(await sub(SUB.monthly)).toMatchObject({
      status: "past_due",
      period_seq: 5,
      next_charge_at: "2026-06-16T00:00:00Z",
    });
    expect((await cycles(SUB.monthly))[0]).toMatchObject({ period_seq: 6, status: "pending", paid_at: null });
    await client.admin("/clock/advance", { to: "2026-06-16T00:00:01Z" });
    expect(await sub(SUB.monthly)).toMatchObject({ status: "past_due", next_charge_at: "2026-06-18T00:00:00Z" });
    await client.admin("/clock/advance", { to: "2026-06-18T00:00:01Z" });
    const paid = (await cycles(SUB.monthly))[0];
    expect(paid).toMatchObject({
      period_seq: 6,
      status: "paid",
      paid_at: "2026-06-18T00:00:00Z",
      period_start: "2026-06-15T00:00:00Z",
    });
    const detail = await client.get(`/api/subscriptions/reporting/periods/${paid.period_id}`);
    expect(detail.body.charge).toEqual({
      attempts_for_period: 3,
      paid_attempt_no: 3,
      paid_attempt_at: "2026-06-18T00:00:00Z",
      outcome: "succeeded",
    });
    expect(await sub(SUB.monthly)).toMatchObject({ status: "active", period_seq: 6 });

    await client.admin(`/subscriptions/${SUB.monthly}/charge-outcomes`, {
      outcomes: ["decline", "decline", "decline", "decline"],
    });
    await client.admin("/clock/advance", { to: "2026-07-30T00:00:00Z" });
    expect(await sub(SUB.monthly)).toMatchObject({
      status: "expired",
      ended_at: "2026-07-20T00:00:00Z",
      next_charge_at: null,
    });
    expect((await cycles(SUB.monthly))[0]).toMatchObject({ period_seq: 7, status: "failed" });
  });

  it("loads a subscription in dunning as live dunning leaves it, and keeps the retry schedule from there", async () => {
    const june = { period_seq: 2, period_start: "2026-06-15T00:00:00Z", period_end: "2026-07-15T00:00:00Z" };
    const scenario = (
      status: "past_due" | "expired" | "active",
      last: { status: "pending" | "failed" | "forgiven"; attempts: number },
    ) =>
      oneSubscriptionScenario({
        clock: "2026-07-01T00:00:00Z",
        subscription: {
          amount_usd: "10.00",
          created_at: "2026-05-15T00:00:00Z",
          status,
          revenue_share: { recipient_player_id: 1, percent: "10.00" },
          periods: [FIRST_PERIOD_FROM_MAY_15, { ...june, ...last }],
        },
      });
    expect((await client.admin("/scenario", scenario("past_due", { status: "pending", attempts: 2 }))).status).toBe(
      200,
    );
    // The current window is the last one paid; the unpaid one waits for its retry.
    expect(await sub(SUB.monthly)).toMatchObject({
      status: "past_due",
      period_seq: 1,
      current_period_start: "2026-05-15T00:00:00Z",
      current_period_end: "2026-06-15T00:00:00Z",
      next_charge_at: "2026-07-02T00:00:00Z",
    });
    // Declined at its third attempt, it waits two days for its last retry instead of running out at once.
    await client.admin(`/subscriptions/${SUB.monthly}/charge-outcomes`, { outcomes: ["decline"] });
    await client.admin("/clock/advance", { to: "2026-07-02T00:00:01Z" });
    expect(await sub(SUB.monthly)).toMatchObject({ status: "past_due", next_charge_at: "2026-07-04T00:00:00Z" });
    expect((await cycles(SUB.monthly))[0]).toMatchObject({ period_seq: 2, status: "pending" });
    // One that expired ended at its fourth decline, five days after its first attempt.
    expect((await client.admin("/scenario", scenario("expired", { status: "failed", attempts: 4 }))).status).toBe(200);
    expect(await sub(SUB.monthly)).toMatchObject({
      status: "expired",
      ended_at: "2026-06-20T00:00:00Z",
      current_period_end: "2026-06-15T00:00:00Z",
    });
    // A live one whose latest window was forgiven is charged next after that window, never for it again.
    expect((await client.admin("/scenario", scenario("active", { status: "forgiven", attempts: 1 }))).status).toBe(200);
    expect(await sub(SUB.monthly)).toMatchObject({
      current_period_end: "2026-07-15T00:00:00Z",
      next_charge_at: "2026-07-15T00:00:00Z",
    });
  });

  it("declines a wallet-only renewal the wallet cannot cover", async () => {
    await client.admin("/players/balance", { game_id: "g1", player_id: 3, balance_coins: "10.00" });
    await client.admin("/clock/advance", { to: "2026-06-05T00:00:01Z" });
    expect((await sub(SUB.wallet)).status).toBe("past_due");
    await client.admin("/players/balance", { game_id: "g1", player_id: 3, balance_coins: "60.00" });
    await client.admin("/clock/advance", { to: "2026-06-06T00:00:01Z" });
    expect(await sub(SUB.wallet)).toMatchObject({ status: "active", period_seq: 4 });
    const balance = await client.get("/api/player-balances/player/by-email/carol%40example.test");
    expect(balance.body.balances[0].total_balance).toBe("10.00");
  });

  it("charges the pcstore when the wallet is short and records pcstore_charged_usd", async () => {
    await client.admin("/clock/advance", { to: "2026-06-01T00:00:01Z" });
    const [june] = await cycles(SUB.pcstore);
    expect(june.funding).toMatchObject({ rail: "pcstore", pcstore_charged_usd: "8.00", balance_applied_coins: "0.00" });
    expectError(
      await client.post(`/api/subscriptions/${SUB.pcstore}/refund`, { client_request_id: "pc" }),
      409,
      "PCSTORE_REFUND_NOT_SUPPORTED",
    );
  });
});
