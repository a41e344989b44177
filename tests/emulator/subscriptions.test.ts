import { describe, expect, it } from "vitest";
import { SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
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
