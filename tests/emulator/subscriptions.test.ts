import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureScenario, SECRET, SUB } from "./fixture";
import { expectError, startClient, type Client } from "./helpers";

let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: fixtureScenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client.close());
beforeEach(async () => {
  await client.admin("/reset", {});
});

const list = (query: Record<string, string | number>) => client.get("/api/subscriptions/player", { query });

describe("GET /api/subscriptions/{id}", () => {
  it("returns every field of the subscription object", async () => {
    const call = await client.get(`/api/subscriptions/${SUB.monthly}`);
    expect(call.status).toBe(200);
    expect(call.body.status).toBe("success");
    expect(call.body.player).toBeUndefined();
    const sub = call.body.subscription;
    expect(Object.keys(sub).sort()).toEqual(
      [
        "subscription_id",
        "game_id",
        "player_id",
        "client_request_id",
        "status",
        "amount_usd",
        "pending_amount_usd",
        "interval",
        "interval_count",
        "item_id",
        "item_name",
        "current_period_start",
        "current_period_end",
        "period_seq",
        "next_charge_at",
        "cancel_at_period_end",
        "trial_end",
        "canceled_at",
        "ended_at",
        "wallet_only",
        "has_payment_method",
        "funding_rail",
        "pcstore_agreement_status",
        "metadata",
        "consent",
        "created_at",
        "updated_at",
        "revenue_share",
        "paid_through",
      ].sort(),
    );
    expect(sub).toMatchObject({
      subscription_id: SUB.monthly,
      game_id: "g1",
      player_id: 1,
      status: "active",
      amount_usd: "10.00",
      pending_amount_usd: null,
      interval: "month",
      interval_count: 1,
      period_seq: 5,
      current_period_start: "2026-05-15T00:00:00Z",
      current_period_end: "2026-06-15T00:00:00Z",
      next_charge_at: "2026-06-15T00:00:00Z",
      paid_through: "2026-06-15T00:00:00Z",
      has_payment_method: true,
      funding_rail: "card",
      pcstore_agreement_status: null,
      wallet_only: false,
      revenue_share: { recipient_player_id: 2, percent: "20.00", settled_by_invo: false },
    });
    expect(Object.values(sub.consent)).toHaveLength(6);
    expect(Object.values(sub.consent).every((value) => value === null)).toBe(true);
  });

  it("adds the player block with include_player=true", async () => {
    const call = await client.get(`/api/subscriptions/${SUB.monthly}`, { query: { include_player: true } });
    expect(call.body.player).toEqual({
      player_id: 1,
      player_name: "Alice",
      player_email: "alice@example.test",
      identity_id: "idn_1",
      date_joined: "2025-12-01T00:00:00Z",
    });
  });

  it("refuses a malformed id with 400 INVALID_FIELD_VALUE and an unknown one with 404", async () => {
    expectError(await client.get("/api/subscriptions/not-an-id"), 400, "INVALID_FIELD_VALUE");
    expectError(await client.get("/api/subscriptions/SUB_1767225600_ZZZZ9999"), 404, "SUBSCRIPTION_NOT_FOUND");
    expectError(
      await client.get(`/api/subscriptions/${SUB.monthly}`, { query: { include_player: "maybe" } }),
      400,
      "INVALID_FIELD_VALUE",
    );
  });

  it("shows period_seq 1 (1-based) on a subscription never charged, and its first charge bills period 1", async () => {
    // Spec: period_seq is "1-based; advances on each successful charge".
    expect((await client.get(`/api/subscriptions/${SUB.neverBilled}`)).body.subscription).toMatchObject({
      period_seq: 1,
      paid_through: null,
    });
    await client.admin("/clock/advance", { by: "1d" });
    const charged = (await client.get(`/api/subscriptions/${SUB.neverBilled}`)).body.subscription;
    expect(charged).toMatchObject({ status: "active", period_seq: 1 });
    const cycles = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.neverBilled}/attribution`)).body
      .periods;
    expect(cycles.map((p: any) => [p.period_seq, p.status])).toEqual([[1, "paid"]]);
  });

  it("shows pcstore agreement status on pcstore subscriptions and no card", async () => {
    const sub = (await client.get(`/api/subscriptions/${SUB.pcstore}`)).body.subscription;
    expect(sub.funding_rail).toBe("pcstore");
    expect(sub.pcstore_agreement_status).toBe("active");
    expect(sub.has_payment_method).toBe(false);
  });

  it("shows next_charge_at null on terminal rows", async () => {
    const sub = (await client.get(`/api/subscriptions/${SUB.canceled}`)).body.subscription;
    expect(sub.status).toBe("canceled");
    expect(sub.next_charge_at).toBeNull();
    expect(sub.canceled_at).toBe("2026-01-20T00:00:00Z");
  });
});

describe("GET /api/subscriptions/player", () => {
  it("lists a player's subscriptions newest first with pagination", async () => {
    const call = await list({ player_email: "alice@example.test" });
    expect(call.status).toBe(200);
    expect(call.body.player_email).toBe("alice@example.test");
    const created = call.body.subscriptions.map((s: any) => s.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(call.body.pagination).toEqual({ total_count: 6, limit: 50, offset: 0, has_more: false });
  });

  it("matches the email case-insensitively", async () => {
    const call = await list({ player_email: "ALICE@example.test" });
    expect(call.body.pagination.total_count).toBe(6);
  });

  it("pages at the edges: limit 1, the last page, an offset past the end", async () => {
    const first = await list({ player_email: "alice@example.test", limit: 1 });
    expect(first.body.subscriptions).toHaveLength(1);
    expect(first.body.pagination).toEqual({ total_count: 6, limit: 1, offset: 0, has_more: true });
    const last = await list({ player_email: "alice@example.test", limit: 5, offset: 5 });
    expect(last.body.subscriptions).toHaveLength(1);
    expect(last.body.pagination.has_more).toBe(false);
    const beyond = await list({ player_email: "alice@example.test", offset: 100000 });
    expect(beyond.body.subscriptions).toEqual([]);
    expect(beyond.body.pagination.total_count).toBe(6);
    const ids = new Set<string>();
    for (let offset = 0; offset < 6; offset += 2) {
      const page = await list({ player_email: "alice@example.test", limit: 2, offset });
      for (const s of page.body.subscriptions) ids.add(s.subscription_id);
    }
    expect(ids.size).toBe(6);
  });

  it("refuses limits and offsets out of range with PAGINATION_INVALID", async () => {
    const bad: Record<string, string | number>[] = [
      { limit: 0 },
      { limit: 101 },
      { limit: "ten" },
      { offset: -1 },
      { offset: 100001 },
    ];
    for (const query of bad) {
      expectError(await list({ player_email: "alice@example.test", ...query }), 400, "PAGINATION_INVALID");
    }
    expect((await list({ player_email: "alice@example.test", limit: 100 })).status).toBe(200);
  });

  it("filters by status; live expands to the four live statuses and mixes with others", async () => {
    const canceled = await list({ player_email: "alice@example.test", status: "canceled" });
    expect(canceled.body.subscriptions.map((s: any) => s.subscription_id)).toEqual([SUB.canceled]);
    const carolLive = await list({ player_email: "carol@example.test", status: "live" });
    expect(carolLive.body.subscriptions.map((s: any) => s.status).sort()).toEqual([
      "active",
      "awaiting_authentication",
      "past_due",
    ]);
    const mixed = await list({ player_email: "alice@example.test", status: "live,canceled" });
    expect(mixed.body.pagination.total_count).toBe(6);
    const pastDue = await list({ player_email: "carol@example.test", status: "past_due" });
    expect(pastDue.body.subscriptions).toHaveLength(1);
  });

  it("refuses an unknown status with STATUS_INVALID", async () => {
    expectError(await list({ player_email: "alice@example.test", status: "live,bogus" }), 400, "STATUS_INVALID");
  });

  it("returns an empty list for a player who does not exist", async () => {
    const call = await list({ player_email: "nobody@example.test" });
    expect(call.status).toBe(200);
    expect(call.body.subscriptions).toEqual([]);
    expect(call.body.pagination.total_count).toBe(0);
  });

  it("requires player_email and refuses a long one", async () => {
    expectError(await client.get("/api/subscriptions/player"), 400, "PLAYER_EMAIL_REQUIRED");
    expectError(await list({ player_email: `${"a".repeat(250)}@example.test` }), 400, "PLAYER_EMAIL_TOO_LONG");
  });

  it("adds the player block with include_player", async () => {
    const call = await list({ player_email: "bob@example.test", include_player: "true" });
    expect(call.body.player.player_id).toBe(2);
    expect(call.body.subscriptions).toEqual([]);
  });
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
