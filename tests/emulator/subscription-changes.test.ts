import { describe, expect, it } from "vitest";
import { SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

describe("POST /api/subscriptions/{id}/cancel", () => {
  it("cancels at period end while a paid period runs, with one subscription.canceled at request time", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { reason: "too expensive" });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      status: "success",
      already_canceled: false,
      cancel_at_period_end: true,
      effective_at: "2026-06-15T00:00:00Z",
      access_until: "2026-06-15T00:00:00Z",
      paid_through: "2026-06-15T00:00:00Z",
      current_period_end: "2026-06-15T00:00:00Z",
    });
    expect(call.body.subscription.status).toBe("active");
    expect(call.body.subscription.metadata._invo_cancellation_reason).toBe("too expensive");
    // Retired at paid_through with no further charge.
    const advance = await client.admin("/clock/advance", { to: "2026-07-01T00:00:00Z" });
    expect(advance.body.retired).toBeGreaterThanOrEqual(1);
    const after = (await client.get(`/api/subscriptions/${SUB.monthly}`)).body.subscription;
    expect(after).toMatchObject({
      status: "canceled",
      ended_at: "2026-06-15T00:00:00Z",
      period_seq: 5,
      next_charge_at: null,
    });
  });

  it("ends now with at_period_end false; access_until is paid_through when in the future", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { at_period_end: false });
    expect(call.body).toMatchObject({
      cancel_at_period_end: false,
      effective_at: "2026-06-01T00:00:00Z",
      access_until: "2026-06-15T00:00:00Z",
    });
    expect(call.body.subscription.status).toBe("canceled");
    expect(call.body.subscription.ended_at).toBe("2026-06-01T00:00:00Z");
    // Asked again (an answer lost on the way, say), it says the same access end: the paid time still runs.
    const again = await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { at_period_end: false });
    expect(again.body).toMatchObject({
      already_canceled: true,
      final_status: "canceled",
      effective_at: "2026-06-01T00:00:00Z",
      access_until: "2026-06-15T00:00:00Z",
      paid_through: "2026-06-15T00:00:00Z",
    });
  });

  it("treats an empty at_period_end as the default (true)", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { at_period_end: "" });
    expect(call.body.cancel_at_period_end).toBe(true);
  });

  it("ends immediately with NO_PAID_PERIOD when nothing was paid", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.neverBilled}/cancel`);
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      terminated_immediately: true,
      downgrade_reason: "NO_PAID_PERIOD",
      access_until: "2026-06-01T00:00:00Z",
    });
    expect(typeof call.body.message).toBe("string");
    expect(call.body.subscription.status).toBe("canceled");
  });

  it("answers already_canceled with final_status for a terminal subscription", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.canceled}/cancel`, {});
    expect(call.body).toMatchObject({ status: "success", already_canceled: true, final_status: "canceled" });
  });

  it("ends the pcstore agreement on a pcstore subscription", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.pcstore}/cancel`, { at_period_end: false });
    expect(call.body).toMatchObject({ pcstore_agreement_status: "canceled", pcstore_agreement_canceled: true });
  });

  it("refuses a reason over 500 characters and a non-boolean at_period_end", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { reason: "x".repeat(501) }),
      400,
      "INVALID_FIELD_VALUE",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { at_period_end: "yes" }),
      400,
      "INVALID_FIELD_VALUE",
    );
    expect((await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { reason: "x".repeat(500) })).status).toBe(
      200,
    );
  });

  it("is not blocked by a maintenance pause", async () => {
    await client.admin("/pause", { paused: true });
    expect((await client.post(`/api/subscriptions/${SUB.monthly}/cancel`)).status).toBe(200);
  });
});

describe("POST /api/subscriptions/{id}/amount", () => {
  it("stages a new price for the next renewal without proration", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "12.00" });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      status: "success",
      old_amount_usd: "10.00",
      new_amount_usd: "12.00",
      pending_amount_usd: "12.00",
      change_queued: true,
      applies_from: "2026-06-15T00:00:00Z",
      applies_from_period_seq: 6,
      paid_through: "2026-06-15T00:00:00Z",
      prorated: false,
    });
    expect(call.body.subscription.amount_usd).toBe("10.00");
    expect(call.body.subscription.pending_amount_usd).toBe("12.00");
  });

  it("clears a staged change when the current price is sent", async () => {
    await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "12.00" });
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "10.00" });
    expect(call.body).toMatchObject({ change_queued: false, pending_amount_usd: null });
  });

  it("bills a dunning window opened at a staged price at the current price once support clears it", async () => {
    const path = `/api/subscriptions/${SUB.monthly}`;
    expect((await client.post(`${path}/amount`, { amount_usd: "15.00" })).body.change_queued).toBe(true);
    await client.admin(`/subscriptions/${SUB.monthly}/charge-outcomes`, { outcomes: ["decline"] });
    // The renewal due on 15 June opens the next window at the staged price and is declined: dunning.
    await client.admin("/clock/advance", { to: "2026-06-15T12:00:00Z" });
    expect((await client.get(path)).body.subscription).toMatchObject({
      status: "past_due",
      pending_amount_usd: "15.00",
    });
    const cleared = await client.post(`${path}/amount`, { amount_usd: "10.00" });
    expect(cleared.body).toMatchObject({ change_queued: false, pending_amount_usd: null });
    // The retry a day later charges the price the subscription says, not the one cleared.
    await client.admin("/clock/advance", { to: "2026-06-17T00:00:00Z" });
    const after = (await client.get(path)).body.subscription;
    expect(after).toMatchObject({ status: "active", period_seq: 6, amount_usd: "10.00", pending_amount_usd: null });
    const periods = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).body
      .periods as { period_seq: number; amount_usd: string }[];
    expect(periods.find((p) => p.period_seq === 6)?.amount_usd).toBe("10.00");
  });

  it("forgives the period in dunning and clears a staged price when the subscription is cancelled then", async () => {
    const path = `/api/subscriptions/${SUB.monthly}`;
    expect((await client.post(`${path}/amount`, { amount_usd: "12.00" })).body.change_queued).toBe(true);
    await client.admin(`/subscriptions/${SUB.monthly}/charge-outcomes`, { outcomes: ["decline"] });
    await client.admin("/clock/advance", { to: "2026-06-15T12:00:00Z" });
    expect((await client.get(path)).body.subscription.status).toBe("past_due");
    const ended = await client.post(`${path}/cancel`, { at_period_end: false });
    expect(ended.status).toBe(200);
    expect(ended.body.subscription).toMatchObject({
      status: "canceled",
      pending_amount_usd: null,
      next_charge_at: null,
    });
    const periods = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).body
      .periods as { period_seq: number; period_id: number; status: string }[];
    const open = periods.find((p) => p.period_seq === 6);
    expect(open?.status).toBe("forgiven");
    const detail = await client.get(`/api/subscriptions/reporting/periods/${open?.period_id}`);
    expect(detail.body.charge).toMatchObject({ attempts_for_period: 1, outcome: "forgiven" });
    // Nothing charges it afterwards.
    await client.admin("/clock/advance", { to: "2026-07-30T00:00:00Z" });
    const later = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).body
      .periods as { period_seq: number; status: string }[];
    expect(later.filter((p) => p.status === "paid" && p.period_seq >= 6)).toEqual([]);
    expect(later.find((p) => p.period_seq === 6)?.status).toBe("forgiven");
  });

  it("answers applies_from null until something is paid", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.neverBilled}/amount`, { amount_usd: "8.00" });
    expect(call.body.applies_from).toBeNull();
    expect(call.body.change_queued).toBe(true);
  });

  it("refuses an increase on pcstore with the amounts, and stages a decrease", async () => {
    const up = expectError(
      await client.post(`/api/subscriptions/${SUB.pcstore}/amount`, { amount_usd: "9.00" }),
      409,
      "PCSTORE_REAUTHORIZATION_REQUIRED",
    );
    expect(up).toMatchObject({ current_amount_usd: "8.00", requested_amount_usd: "9.00" });
    const down = await client.post(`/api/subscriptions/${SUB.pcstore}/amount`, { amount_usd: "7.00" });
    expect(down.body.change_queued).toBe(true);
  });

  it("refuses a terminal subscription, a pause and malformed amounts", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.canceled}/amount`, { amount_usd: "5.00" }),
      409,
      "SUBSCRIPTION_TERMINAL",
    );
    for (const amount of ["0", "-1", "1.234", 12, "abc", undefined]) {
      expectError(
        await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: amount }),
        400,
        "INVALID_FIELD_VALUE",
      );
    }
    await client.admin("/pause", { paused: true });
    const paused = await client.post(`/api/subscriptions/${SUB.monthly}/amount`, { amount_usd: "11.00" });
    expect(paused.status).toBe(503);
  });
});

describe("POST /api/subscriptions/{id}/payment-method", () => {
  it("replaces the card with another unexpired card of the player", async () => {
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 13 });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ status: "success", replaced: true, wallet_only: false });
    expect(call.body.card).toEqual({
      id: 13,
      last_four: "1881",
      brand: "mastercard",
      exp_month: 3,
      exp_year: 2029,
      created_at: "2026-02-01T00:00:00Z",
    });
    const alias = await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { card_id: 11 });
    expect(alias.body.card.id).toBe(11);
  });

  it("refuses cards that are not this player's, expired, removed, or missing", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 31 }),
      404,
      "PAYMENT_METHOD_NOT_FOUND",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 91 }),
      404,
      "PAYMENT_METHOD_NOT_FOUND",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 12 }),
      400,
      "PAYMENT_METHOD_EXPIRED",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: "11" }),
      400,
      "PAYMENT_METHOD_INVALID",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, {}),
      400,
      "PAYMENT_METHOD_REQUIRED",
    );
    await client.admin("/cards/13/remove", {});
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 13 }),
      409,
      "PAYMENT_METHOD_UNAVAILABLE",
    );
  });

  it("needs wallet_only false to put a card on a wallet-only subscription", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.wallet}/payment-method`, { player_card_id: 31 }),
      409,
      "WALLET_ONLY_SUBSCRIPTION",
    );
    const call = await client.post(`/api/subscriptions/${SUB.wallet}/payment-method`, {
      player_card_id: 31,
      wallet_only: false,
    });
    expect(call.body).toMatchObject({ wallet_only: false, replaced: false });
    expect(call.body.subscription.has_payment_method).toBe(true);
  });

  it("refuses wallet_only true with a card, and converts to wallet-only without one", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 11, wallet_only: true }),
      400,
      "WALLET_ONLY_CONFLICT",
    );
    const call = await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { wallet_only: true });
    expect(call.body).toMatchObject({ wallet_only: true, card: null });
    expect(call.body.subscription.has_payment_method).toBe(false);
  });

  it("refuses pcstore and terminal subscriptions, and a pause", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.pcstore}/payment-method`, { player_card_id: 11 }),
      409,
      "NOT_A_CARD_SUBSCRIPTION",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.canceled}/payment-method`, { player_card_id: 11 }),
      409,
      "SUBSCRIPTION_TERMINAL",
    );
    await client.admin("/pause", { paused: true });
    expect((await client.post(`/api/subscriptions/${SUB.monthly}/payment-method`, { player_card_id: 13 })).status).toBe(
      503,
    );
  });

  it("uses the new card from the next charge, including a retry in dunning", async () => {
    await client.post(`/api/subscriptions/${SUB.pastDue}/payment-method`, { player_card_id: 31 });
    // An empty wallet, so the card pays the whole retry.
    await client.admin("/players/balance", { game_id: "g1", player_id: 3, balance_coins: "0.00" });
    const advance = await client.admin("/clock/advance", { by: "2d" });
    expect(advance.body.renewals).toBeGreaterThanOrEqual(1);
    const sub = (await client.get(`/api/subscriptions/${SUB.pastDue}`)).body.subscription;
    expect(sub).toMatchObject({ status: "active", period_seq: 3, has_payment_method: true });
    const cycles = await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.pastDue}/attribution`);
    const third = cycles.body.periods.find((p: any) => p.period_seq === 3);
    expect(third).toMatchObject({ status: "paid", paid_at: "2026-06-02T00:00:00Z" });
    expect(third.funding.card_charged_usd).toBe("6.00");
  });
});
