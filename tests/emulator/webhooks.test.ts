import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureScenario, SECRET, SUB } from "./fixture";
import { waitFor } from "../support/wait";
import { startClient, type Client } from "./helpers";

const SIGNING_SECRET = "whsec_test_hooks";

type Received = { headers: http.IncomingHttpHeaders; raw: string; at: number; answered: number };

/** A local receiver: answers the status its `plan` gives for each try (by default 500 first, then 200). */
class Receiver {
  readonly received: Received[] = [];
  plan: (tryNo: number) => number = (tryNo) => (tryNo === 1 ? 500 : 200);
  private server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const key = String(req.headers["x-service-idempotency-key"]);
      const tryNo = this.received.filter((r) => r.headers["x-service-idempotency-key"] === key).length + 1;
      const status = this.plan(tryNo);
      this.received.push({ headers: req.headers, raw, at: Date.now(), answered: status });
      res.statusCode = status;
      res.end();
    });
  });
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  ofType(type: string): Received[] {
    return this.received.filter((r) => JSON.parse(r.raw).event_type === type);
  }
}

/** Verifies a signature header as a receiver must: every v1 value against HMAC-SHA256("{t}.{raw}"). */
function verify(header: string, raw: string, secret: string): { ok: boolean; t: number; count: number } {
  const parts = header.split(",");
  const t = Number(parts.find((p) => p.startsWith("t="))?.slice(2));
  const v1 = parts.filter((p) => p.startsWith("v1=")).map((p) => p.slice(3));
  const expected = createHmac("sha256", secret).update(`${t}.${raw}`).digest("hex");
  const ok = v1.some(
    (candidate) =>
      candidate.length === expected.length && timingSafeEqual(Buffer.from(candidate), Buffer.from(expected)),
  );
  return { ok, t, count: v1.length };
}

let client: Client;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  // scaled:600: the 30 s retry comes after 50 ms, the 2 m one after 200 ms.
  client = await startClient(
    { scenario: fixtureScenario(), rateLimits: "scaled:600", webhookUrl: receiver.url, webhookSecret: SIGNING_SECRET },
    SECRET,
  );
});
afterAll(async () => {
  await client.close();
  await receiver.stop();
});
beforeEach(async () => {
  await client.admin("/reset", {});
  receiver.received.length = 0;
  receiver.plan = (tryNo) => (tryNo === 1 ? 500 : 200);
});

describe("webhook deliveries", () => {
  it("signs, retries after a failure on the scaled schedule and keeps the idempotency key", async () => {
    const refund = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
      client_request_id: "wh-1",
      amount_usd: "2.50",
      reason: "test",
    });
    expect(refund.status).toBe(200);
    const tries = await waitFor(async () => {
      const got = receiver.ofType("subscription.refunded");
      return got.length >= 2 ? got : null;
    });
    const [first, second] = tries as [Received, Received];
    expect(first.answered).toBe(500);
    expect(second.answered).toBe(200);
    expect(second.at - first.at).toBeGreaterThanOrEqual(40);
    expect(second.at - first.at).toBeLessThan(2_000);
    expect(second.raw).toBe(first.raw);
    expect(first.headers["x-service-idempotency-key"]).toBe(second.headers["x-service-idempotency-key"]);
    expect(first.headers["x-service-event-id"]).not.toBe(second.headers["x-service-event-id"]);
    expect(first.headers["x-service-secret-version"]).toBe("v1");
    for (const received of tries) {
      const check = verify(String(received.headers["x-service-signature"]), received.raw, SIGNING_SECRET);
      expect(check.ok).toBe(true);
      expect(check.count).toBe(1);
      expect(Math.abs(Date.now() / 1000 - check.t)).toBeLessThan(300);
      expect(verify(String(received.headers["x-service-signature"]), received.raw, "whsec_wrong").ok).toBe(false);
    }
    const envelope = JSON.parse(second.raw);
    expect(Object.keys(envelope).sort()).toEqual(["created_at", "data", "event_id", "event_type", "tenant_id"]);
    expect(envelope).toMatchObject({
      event_type: "subscription.refunded",
      tenant_id: "g1",
      created_at: "2026-06-01T00:00:00Z",
    });
    expect(envelope.data).toMatchObject({
      subscription_id: SUB.monthly,
      item_id: "gold",
      period_seq: 5,
      client_request_id: "wh-1",
      player_email: "alice@example.test",
      identity_id: "idn_1",
      amount_usd: "2.50",
      total_refunded_amount_usd: "2.50",
      period_amount_usd: "10.00",
      is_full_refund: false,
      reason: "test",
      period_status: "paid",
      refund: {
        funding_shape: "card",
        balance_delta_coins: "25.00",
        card_refunded_usd: "0.00",
        invo_fee_retained: true,
        partner_revenue_reversal_mode: "prorata",
      },
      revenue_share_attribution: { recipient_player_id: 2, settled_by_invo: false },
    });
    expect(envelope.data.transaction_id).toBe(refund.body.transaction_id);
    // The admin log shows both tries.
    const log = await client.admin("/webhooks/deliveries?event_type=subscription.refunded");
    const delivery = log.body.deliveries[0];
    expect(delivery).toMatchObject({ status: "delivered", event_type: "subscription.refunded" });
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
    // No purchase.refunded: a partial refund returns nothing to the card.
    expect(receiver.ofType("purchase.refunded")).toEqual([]);
  });

  it("sends purchase.refunded when a card refund returns money", async () => {
    receiver.plan = () => 200;
    await client.post(`/api/subscriptions/${SUB.mixed}/refund`, { client_request_id: "wh-card" });
    const [purchase] = await waitFor(async () => {
      const got = receiver.ofType("purchase.refunded");
      return got.length > 0 ? got : null;
    });
    expect(JSON.parse(purchase!.raw).data).toMatchObject({
      usd_refunded: "15.00",
      usd_original: "15.00",
      fully_refunded: true,
      currency_debited: "150.00",
      new_balance: "150.00",
      currency_name: "Coins",
      order_status: "refunded",
    });
  });

  it("sends subscription.renewed on clock advance with funding and attribution", async () => {
    receiver.plan = () => 200;
    await client.admin("/clock/advance", { to: "2026-06-15T00:00:01Z" });
    const renewed = await waitFor(async () => {
      const got = receiver.ofType("subscription.renewed").map((r) => JSON.parse(r.raw).data);
      return got.find((d) => d.subscription_id === SUB.monthly);
    });
    expect(renewed).toMatchObject({
      period_seq: 6,
      amount_usd: "10.00",
      paid_at: "2026-06-15T00:00:00Z",
      funding: { rail: "card", pcstore_charged_usd: "0.00" },
      attribution: {
        recipient_player_id: 2,
        percent_at_renewal: "20.00",
        attributed_amount_usd: "1.80",
        settled_by_invo: false,
      },
      settled_by_invo: false,
    });
    const pcstore = receiver
      .ofType("subscription.renewed")
      .map((r) => JSON.parse(r.raw).data)
      .find((d) => d.subscription_id === SUB.pcstore);
    expect(pcstore.funding.pcstore_charged_usd).toBe("8.00");
  });

  it("sends subscription.canceled at request time with access_until, only to endpoints that subscribe", async () => {
    receiver.plan = () => 200;
    const only = new Receiver();
    await only.start();
    try {
      only.plan = () => 200;
      const added = await client.admin("/webhooks", {
        game_id: "g1",
        url: only.url,
        events: ["subscription.canceled"],
      });
      expect(added.status).toBe(201);
      await client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "wh-x", amount_usd: "1.00" });
      await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, { reason: "bye" });
      const canceled = await waitFor(async () => (only.received.length > 0 ? only.received : null));
      await client.emulator.runtime.dispatcher.idle();
      expect(only.received.map((r) => JSON.parse(r.raw).event_type)).toEqual(["subscription.canceled"]);
      expect(verify(String(canceled[0]!.headers["x-service-signature"]), canceled[0]!.raw, added.body.secret).ok).toBe(
        true,
      );
      expect(JSON.parse(canceled[0]!.raw).data).toMatchObject({
        subscription_id: SUB.monthly,
        access_until: "2026-06-15T00:00:00Z",
        reason: "bye",
      });
      expect(receiver.ofType("subscription.canceled")).toHaveLength(1);
    } finally {
      await only.stop();
    }
  });

  it("carries two v1 values during a signing-secret rotation, and one after the 7-day grace", async () => {
    receiver.plan = () => 200;
    const state = await client.admin("/state");
    const webhookId = state.body.games.find((g: any) => g.game_id === "g1").webhooks[0].webhook_id;
    const rotated = await client.admin(`/games/g1/webhooks/${webhookId}/rotate-secret`, { secret: "whsec_rotated" });
    expect(rotated.body.secret_version).toBe("v2");
    await client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "rot-1", amount_usd: "1.00" });
    const [during] = await waitFor(async () => (receiver.received.length > 0 ? receiver.received : null));
    const header = String(during!.headers["x-service-signature"]);
    expect(during!.headers["x-service-secret-version"]).toBe("v2");
    expect(verify(header, during!.raw, "whsec_rotated")).toMatchObject({ ok: true, count: 2 });
    expect(verify(header, during!.raw, SIGNING_SECRET).ok).toBe(true);
    receiver.received.length = 0;
    await client.admin("/clock/advance", { by: "7d" });
    await client.emulator.runtime.dispatcher.idle();
    receiver.received.length = 0;
    await client.post(`/api/subscriptions/${SUB.ninetyNine}/refund`, {
      client_request_id: "rot-2",
      amount_usd: "1.00",
    });
    const [after] = await waitFor(async () => {
      const got = receiver.ofType("subscription.refunded");
      return got.length > 0 ? got : null;
    });
    const afterHeader = String(after!.headers["x-service-signature"]);
    expect(verify(afterHeader, after!.raw, "whsec_rotated")).toMatchObject({ ok: true, count: 1 });
    expect(verify(afterHeader, after!.raw, SIGNING_SECRET).ok).toBe(false);
  });

  it("retries network errors on the schedule and records each try", async () => {
    await client.admin("/webhooks", {
      game_id: "g1",
      url: "http://127.0.0.1:9/unreachable",
      events: ["subscription.canceled"],
    });
    await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, {});
    const delivery = await waitFor(async () => {
      const log = await client.admin("/webhooks/deliveries?event_type=subscription.canceled");
      const failing = log.body.deliveries.find((d: any) => d.url.includes("unreachable"));
      // A try is listed when it starts: wait for three that have ended (an answer or an error).
      const ended = failing?.attempts.filter((a: any) => a.status_code !== null || a.error !== null) ?? [];
      return ended.length >= 3 ? { ...failing, attempts: ended } : null;
    });
    expect(delivery.status).toBe("pending");
    expect(delivery.attempts.every((a: any) => a.status_code === null && typeof a.error === "string")).toBe(true);
    const gaps = [1, 2].map(
      (i) => Date.parse(delivery.attempts[i].attempted_at) - Date.parse(delivery.attempts[i - 1].attempted_at),
    );
    expect(gaps[0]).toBeGreaterThanOrEqual(40); // 30 s / 600
    expect(gaps[1]).toBeGreaterThanOrEqual(180); // 2 min / 600
    expect(delivery.next_attempt_at).not.toBeNull();
  });

  it("replays a delivery with a new event id header and the same idempotency key", async () => {
    receiver.plan = () => 200;
    await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, {});
    const [first] = await waitFor(async () => {
      const got = receiver.ofType("subscription.canceled");
      return got.length > 0 ? got : null;
    });
    const log = await client.admin("/webhooks/deliveries?event_type=subscription.canceled");
    await client.admin(`/webhooks/deliveries/${log.body.deliveries[0].delivery_id}/replay`, {});
    const both = await waitFor(async () => {
      const got = receiver.ofType("subscription.canceled");
      return got.length > 1 ? got : null;
    });
    expect(both[1]!.headers["x-service-idempotency-key"]).toBe(first!.headers["x-service-idempotency-key"]);
    expect(both[1]!.headers["x-service-event-id"]).not.toBe(first!.headers["x-service-event-id"]);
  });
});
