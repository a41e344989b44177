import { describe, expect, it } from "vitest";
import { refundReceiptBody } from "./__fixtures__/bodies";
import { parseWebhookEvent, webhookEnvelopeSchema } from "./schemas";

describe("webhooks", () => {
  const envelope = (event_type: string, data: Record<string, unknown>) => ({
    event_id: "evt_1",
    event_type,
    created_at: "2026-03-12T09:30:02Z",
    tenant_id: "game_42",
    data,
  });

  const refundedData = () => {
    const receipt = refundReceiptBody();
    return {
      subscription_id: receipt.subscription_id,
      item_id: "vip_monthly",
      period_seq: 3,
      transaction_id: receipt.transaction_id,
      client_request_id: receipt.client_request_id,
      player_email: "jane@example.com",
      identity_id: "idn_1",
      amount_usd: "3.33",
      total_refunded_amount_usd: "3.33",
      period_amount_usd: "9.99",
      is_full_refund: false,
      reason: null,
      period_status: "paid",
      refund: {
        funding_shape: "card",
        balance_delta_coins: "33.30",
        card_refunded_usd: "0.00",
        processor_refund_adopted: false,
        new_balance: "133.30",
        invo_fee_retained: true,
        partner_revenue_reversed_usd: "3.00",
        partner_revenue_reversal_mode: "prorata",
      },
      revenue_share_attribution: receipt.revenue_share_attribution,
      metadata: null,
      something_new: { kept: true },
    };
  };

  it("parses subscription.refunded and keeps unknown data fields", () => {
    const result = parseWebhookEvent(envelope("subscription.refunded", refundedData()));
    expect(result.success).toBe(true);
    if (result.success && result.event.type === "subscription.refunded") {
      expect(result.event.data.client_request_id).toBe("refund-0b6f");
      expect(result.event.data.something_new).toEqual({ kept: true });
    } else {
      throw new Error("expected a refunded event");
    }
  });

  it("parses subscription.refunded without the fields the desk only keeps (a refund made elsewhere)", () => {
    const data: Record<string, unknown> = refundedData();
    for (const key of ["client_request_id", "player_email", "identity_id", "reason", "metadata"]) delete data[key];
    delete data.revenue_share_attribution;
    const result = parseWebhookEvent(envelope("subscription.refunded", data));
    const parsed = result.success && result.event.type === "subscription.refunded" ? result.event.data : null;
    expect([parsed?.subscription_id, parsed && "client_request_id" in parsed]).toEqual([data.subscription_id, false]);
  });

  it("reads subscription.refunded whatever the fields it does not read hold, refuses one without its amount", () => {
    const data: Record<string, unknown> = {
      ...refundedData(),
      transaction_id: 4411,
      item_id: null,
      is_full_refund: "no",
      period_status: null,
      refund: null,
      revenue_share_attribution: "see receipt",
      metadata: [1, 2],
      total_refunded_amount_usd: 3.33,
    };
    const result = parseWebhookEvent(envelope("subscription.refunded", data));
    const parsed = result.success && result.event.type === "subscription.refunded" ? result.event.data : null;
    expect([parsed?.amount_usd, parsed?.period_seq, parsed?.refund]).toEqual(["3.33", data.period_seq, null]);

    delete data.amount_usd;
    const missing = parseWebhookEvent(envelope("subscription.refunded", data));
    expect(missing.success ? "read" : missing.issues.join("; ")).toMatch(/amount_usd/);
  });

  it("parses subscription.renewed with only the fields the spec shows", () => {
    const result = parseWebhookEvent(
      envelope("subscription.renewed", { funding: { pcstore_charged_usd: "0.00", extra: 1 }, attribution: null }),
    );
    expect(result.success && result.event.type).toBe("subscription.renewed");
    if (result.success && result.event.type === "subscription.renewed") {
      expect(result.event.data.funding?.pcstore_charged_usd).toBe("0.00");
    }
    expect(parseWebhookEvent(envelope("subscription.renewed", {})).success).toBe(true);
  });

  it("parses subscription.canceled with access_until", () => {
    const result = parseWebhookEvent(envelope("subscription.canceled", { access_until: "2026-04-01T00:00:00Z", x: 1 }));
    expect(result.success && result.event.type === "subscription.canceled" && result.event.data.access_until).toBe(
      "2026-04-01T00:00:00Z",
    );
  });

  it("returns purchase.* and unknown types as other, data intact", () => {
    const result = parseWebhookEvent(envelope("purchase.completed", { order_id: "o1", usd_amount: "5.00" }));
    expect(result.success && result.event.type).toBe("other");
    if (result.success) expect(result.event.data).toEqual({ order_id: "o1", usd_amount: "5.00" });
  });

  it("reports a broken envelope or data by path", () => {
    const bad = parseWebhookEvent({ event_type: "subscription.canceled", data: {} });
    expect(bad.success).toBe(false);
    const badData = parseWebhookEvent(envelope("subscription.refunded", { ...refundedData(), amount_usd: 3.33 }));
    expect(badData.success).toBe(false);
    if (!badData.success) expect(badData.issues).toEqual(["data.amount_usd: invalid_type"]);
    expect(webhookEnvelopeSchema.parse({ ...envelope("x", {}), tenant_id: 42 }).tenant_id).toBe("42");
  });
});
