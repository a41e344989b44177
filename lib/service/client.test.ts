import { describe, expect, it } from "vitest";
import {
  attributionReportBody,
  periodReportBody,
  playerBalanceBody,
  savedCardBody,
  subscriptionAttributionBody,
  subscriptionBody,
} from "./__fixtures__/bodies";
import { SECRET, EMAIL, json, makeClient, receiptOk } from "./__fixtures__/scripted-client";

describe("requests", () => {
  it("sends the secret header, the sandbox prefix and the route's path for every read", async () => {
    const { client, calls } = makeClient([
      json(200, { status: "success", subscription: subscriptionBody() }),
      json(200, {
        status: "success",
        player_email: EMAIL,
        subscriptions: [],
        pagination: { total_count: 0, limit: 10, offset: 0, has_more: false },
      }),
      json(200, attributionReportBody()),
      json(200, subscriptionAttributionBody()),
      json(200, periodReportBody()),
      json(200, playerBalanceBody()),
      json(200, { cards: [savedCardBody()] }),
    ]);
    await client.getSubscription("SUB_1767225600_ab12cd34", { includePlayer: true });
    await client.listPlayerSubscriptions({ playerEmail: EMAIL, status: ["live", "canceled"], limit: 10 });
    await client.getAttributionReport({
      start: "2026-03-01",
      end: "2026-04-01T02:00:00+02:00",
      recipientPlayerId: 2002,
      limit: 100,
      offset: 200,
    });
    await client.getSubscriptionAttribution("SUB_1767225600_ab12cd34", { status: ["paid", "refunded"], limit: 100 });
    await client.getPeriodReport(9001);
    await client.getPlayerBalanceByEmail(EMAIL);
    await client.listPlayerCards(EMAIL);

    const base = "https://service.example.test/sandbox";
    expect(calls.map((c) => decodeURIComponent(c.url))).toEqual([
      `${base}/api/subscriptions/SUB_1767225600_ab12cd34?include_player=true`,
      `${base}/api/subscriptions/player?player_email=${EMAIL}&status=live,canceled&limit=10`,
      `${base}/api/subscriptions/reporting/attribution?start=2026-03-01T00:00:00Z` +
        `&end=2026-04-01T00:00:00Z&recipient_player_id=2002&limit=100&offset=200`,
      `${base}/api/subscriptions/reporting/subscriptions/SUB_1767225600_ab12cd34/attribution` +
        `?status=paid,refunded&limit=100`,
      `${base}/api/subscriptions/reporting/periods/9001`,
      `${base}/api/player-balances/player/by-email/${EMAIL}`,
      `${base}/api/currency-purchases/player-cards?player_email=${EMAIL}`,
    ]);
    // "+" in an email must survive the query string
    expect(calls[1]?.url).toContain("player_email=jane%2Bvip%40example.com");
    for (const call of calls) {
      expect(call.method).toBe("GET");
      expect(call.headers["x-game-secret-key"]).toBe(SECRET);
      expect(call.body).toBeUndefined();
    }
  });

  it("uses no prefix in production and keeps a base path", async () => {
    const { client, calls } = makeClient([json(200, { cards: [] })], {
      environment: "production",
      baseUrl: "https://api.example.test/v/",
    });
    await client.listPlayerCards(EMAIL);
    expect(calls[0]?.url.startsWith("https://api.example.test/v/api/currency-purchases/player-cards?")).toBe(true);
  });

  it("does not double the sandbox prefix when the base address already carries it", async () => {
    const { client, calls } = makeClient([json(200, { cards: [] })], {
      baseUrl: "https://service.example.test/sandbox",
    });
    await client.listPlayerCards(EMAIL);
    expect(new URL(calls[0]!.url).pathname).toBe("/sandbox/api/currency-purchases/player-cards");
  });

  it("sends write bodies with the service's field names", async () => {
    const cancelBody = {
      status: "success",
      already_canceled: true,
      final_status: "canceled",
    };
    const amountBody = {
      status: "success",
      old_amount_usd: "9.99",
      new_amount_usd: "12.00",
      pending_amount_usd: "12.00",
      change_queued: true,
      applies_from: "2026-04-01T00:00:00Z",
      applies_from_period_seq: 4,
      paid_through: "2026-04-01T00:00:00Z",
      current_period_end: "2026-04-01T00:00:00Z",
      prorated: false,
      subscription: subscriptionBody(),
    };
    const methodBody = {
      status: "success",
      replaced: true,
      wallet_only: false,
      card: savedCardBody(),
      subscription: subscriptionBody(),
    };
    const { client, calls } = makeClient([
      json(200, cancelBody),
      json(200, amountBody),
      json(200, methodBody),
      receiptOk(),
    ]);
    const sub = "SUB_1767225600_ab12cd34";
    const cancel = await client.cancelSubscription(sub, { atPeriodEnd: false, reason: "asked by player" });
    expect(cancel.already_canceled).toBe(true);
    await client.changeSubscriptionAmount(sub, { amountUsd: "12.00" });
    await client.changePaymentMethod(sub, { playerCardId: 77, walletOnly: false });
    const refund = await client.refundSubscription(sub, {
      clientRequestId: "refund-0b6f",
      periodSeq: 3,
      amountUsd: "3.33",
      reason: "customer asked",
    });
    expect(refund.outcome).toBe("refunded");
    expect(calls.map((c) => [c.method, new URL(c.url).pathname, c.body])).toEqual([
      ["POST", `/sandbox/api/subscriptions/${sub}/cancel`, { at_period_end: false, reason: "asked by player" }],
      ["POST", `/sandbox/api/subscriptions/${sub}/amount`, { amount_usd: "12.00" }],
      ["POST", `/sandbox/api/subscriptions/${sub}/payment-method`, { player_card_id: 77, wallet_only: false }],
      [
        "POST",
        `/sandbox/api/subscriptions/${sub}/refund`,
        { client_request_id: "refund-0b6f", period_seq: 3, amount_usd: "3.33", reason: "customer asked" },
      ],
    ]);
    for (const call of calls) expect(call.headers["content-type"]).toBe("application/json");
  });

  it("validates input before anything is sent", async () => {
    const { client, calls } = makeClient([]);
    const sub = "SUB_1767225600_ab12cd34";
    await expect(client.refundSubscription(sub, { clientRequestId: "sub_123" })).rejects.toThrow();
    await expect(client.refundSubscription(sub, { clientRequestId: "k", amountUsd: "0" })).rejects.toThrow();
    await expect(client.refundSubscription(sub, { clientRequestId: "k", reason: "x".repeat(501) })).rejects.toThrow();
    await expect(client.getAttributionReport({ start: "2026-03-01", end: "2026-03-01" })).rejects.toThrow();
    await expect(client.getAttributionReport({ start: "2026-01-01", end: "2027-03-01" })).rejects.toThrow();
    await expect(client.getAttributionReport({ start: "2026-01-01", end: "2026-02-01", limit: 101 })).rejects.toThrow();
    await expect(client.getSubscription("../../admin")).rejects.toThrow();
    await expect(client.getPeriodReport(0)).rejects.toThrow();
    await expect(client.changePaymentMethod(sub, {})).rejects.toThrow();
    await expect(client.listPlayerSubscriptions({ playerEmail: "not an email" })).rejects.toThrow();
    expect(calls).toHaveLength(0);
  });

  it("refuses a base URL with a query and an empty secret", () => {
    expect(() => makeClient([], { baseUrl: "https://x.test/?key=1" })).toThrow();
    expect(() => makeClient([], { gameSecret: "" })).toThrow();
  });
});

describe("request log", () => {
  it("writes one entry per attempt, without the secret, bodies or emails", async () => {
    const { client, logs } = makeClient([
      json(503, { status: "service_unavailable" }),
      json(200, playerBalanceBody()),
      json(200, { cards: [] }),
      json(400, { error: "Amount too big", error_code: "AMOUNT_EXCEEDS_REMAINING", remaining_refundable_usd: "1.00" }),
    ]);
    await client.getPlayerBalanceByEmail(EMAIL);
    await client.listPlayerCards(EMAIL);
    await client
      .refundSubscription("SUB_1767225600_ab12cd34", { clientRequestId: "refund-secret-key-1", reason: "private note" })
      .catch(() => undefined);
    expect(logs).toHaveLength(4);
    expect(logs[0]).toMatchObject({
      method: "GET",
      path: "/sandbox/api/player-balances/player/by-email/[email]",
      route: "balance_read",
      status: 503,
      errorCode: "service_unavailable",
      attempt: 1,
      willRetry: true,
    });
    expect(logs[1]).toMatchObject({ status: 200, errorCode: null, attempt: 2, willRetry: false });
    expect(logs[2]?.path).toBe("/sandbox/api/currency-purchases/player-cards?player_email=%5Bemail%5D");
    expect(logs[3]).toMatchObject({ status: 400, errorCode: "AMOUNT_EXCEEDS_REMAINING", willRetry: false });
    const text = JSON.stringify(logs);
    for (const secret of [SECRET, "jane", "example.com", "refund-secret-key-1", "private note"]) {
      expect(text).not.toContain(secret);
    }
    for (const entry of logs) expect(typeof entry.durationMs).toBe("number");
  });

  it("masks the recipient a report is read for: a log line names no player", async () => {
    const { client, logs } = makeClient([json(200, attributionReportBody())]);
    await client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01", recipientPlayerId: 4711 });
    expect(logs[0]?.path).toContain("recipient_player_id=%5Bplayer%5D");
    expect(JSON.stringify(logs)).not.toContain("4711");
  });

  it("survives a log sink that throws", async () => {
    const { client } = makeClient([json(200, { cards: [] })], {
      log: () => {
        throw new Error("disk full");
      },
    });
    await expect(client.listPlayerCards(EMAIL)).resolves.toEqual({ cards: [] });
  });
});
