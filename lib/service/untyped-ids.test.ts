import { describe, expect, it } from "vitest";
import { refundReceiptBody, renewalLineBody } from "./__fixtures__/bodies";
import { subscriptionIdSchema } from "@/lib/lookup/schemas";
import { renewalLineSchema } from "./reporting-schemas";
import { refundAlreadyProcessedSchema, refundReceiptSchema, webhookEnvelopeSchema } from "./schemas";

/**
 * Ids the spec names without a type (transaction_id, mint_order_id, refund_key, event_id): a service that sends them
 * as numbers is read, each as its text, rather than refusing a whole report, a refund's receipt or an event.
 */
describe("ids the spec gives no type for", () => {
  it("are read as text when the service sends numbers", () => {
    const line = renewalLineSchema.parse({ ...renewalLineBody(), transaction_id: 555001, mint_order_id: 9001 });
    expect([line.transaction_id, line.mint_order_id]).toEqual(["555001", "9001"]);
    const receipt = refundReceiptSchema.parse({ ...refundReceiptBody(), refund_key: 42, transaction_id: 77 });
    expect([receipt.refund_key, receipt.transaction_id]).toEqual(["42", "77"]);
    expect(refundAlreadyProcessedSchema.parse({ transaction_id: 78 }).transaction_id).toBe("78");
    const envelope = { event_id: 1234, event_type: "x", created_at: "2026-03-12T09:30:02Z", tenant_id: "g", data: {} };
    expect(webhookEnvelopeSchema.parse(envelope).event_id).toBe("1234");
  });

  it("still refuses what is not an id: a fraction, a boolean, an object", () => {
    for (const odd of [1.5, true, { id: 1 }])
      expect(
        webhookEnvelopeSchema.safeParse({
          event_id: odd,
          event_type: "x",
          created_at: "2026-03-12T09:30:02Z",
          tenant_id: "g",
          data: {},
        }).success,
      ).toBe(false);
  });

  it("a receipt without the reason or processor reference fields is read, as one with them null", () => {
    const body: Record<string, unknown> = { ...refundReceiptBody() };
    delete body.reason;
    delete body.processor_refund_reference;
    const receipt = refundReceiptSchema.parse(body);
    expect(receipt.reason ?? null).toBeNull();
    expect(receipt.processor_refund_reference ?? null).toBeNull();
  });

  it("a subscription id with a millisecond epoch is one", () => {
    expect(subscriptionIdSchema.safeParse("SUB_1767225600123_AB12CD34").success).toBe(true);
    expect(subscriptionIdSchema.safeParse("SUB_12345678901234567_AB12CD34").success).toBe(false);
  });
});
