import { z } from "zod";
import { amountSchema, formatIssues, idTextSchema, intSchema, percentSchema, timestampSchema } from "./schema-parts";

/** The webhook events the service sends (see schemas.ts). */

// --- Webhooks -----------------------------------------------------------------------------------------------------

/**
 * "{event_id, event_type, created_at, tenant_id (the game id), data}". Read as it is for events stored already; a
 * delivery's event id is held to `RECEIVED_EVENT_ID` too.
 */
export const webhookEnvelopeSchema = z.object({
  event_id: idTextSchema,
  event_type: z.string(),
  created_at: timestampSchema,
  tenant_id: z.union([z.string(), z.number().transform((value) => String(value))]),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

/**
 * The event id of a delivery: what tells two events apart (one stored per game and id), so an empty one, or one
 * longer than the 255 characters kept, is refused, never cut to a prefix another event may share.
 */
export const RECEIVED_EVENT_ID = z.string().min(1).max(255);

/**
 * The fields the desk reads: the period refunded, this refund's amount, the attempt it answers and when it was made.
 * The rest the spec lists (item_id, transaction_id, player_email, identity_id, total_refunded_amount_usd,
 * period_amount_usd, is_full_refund, reason, period_status, the refund block, revenue_share_attribution, metadata)
 * are kept with the event as received (its page shows them) and never checked: a change in one of them (a null, a
 * number for a string) does not leave the refund unplaced in its window.
 */
export const subscriptionRefundedDataSchema = z.looseObject({
  subscription_id: z.string(),
  period_seq: intSchema,
  /** This refund. */
  amount_usd: amountSchema,
  /** Links the event to the refund attempt made from Payout Desk; a refund made elsewhere may carry none. */
  client_request_id: z.string().nullish(),
  // Not listed on the event; read when present to place the reversal in its window.
  refunded_at: timestampSchema.optional(),
});
export type SubscriptionRefundedData = z.infer<typeof subscriptionRefundedDataSchema>;

/** "carries funding (including pcstore_charged_usd) and the per-renewal attribution; complete field list: not shown" */
export const subscriptionRenewedDataSchema = z.looseObject({
  subscription_id: z.string().optional(),
  period_seq: intSchema.optional(),
  paid_at: timestampSchema.nullable().optional(),
  amount_usd: amountSchema.optional(),
  funding: z
    .looseObject({
      pcstore_charged_usd: amountSchema.nullable().optional(),
      card_charged_usd: amountSchema.nullable().optional(),
      balance_applied_coins: amountSchema.nullable().optional(),
      amount_coins: amountSchema.nullable().optional(),
      rail: z.string().optional(),
    })
    .optional(),
  attribution: z
    .looseObject({
      recipient_player_id: intSchema.optional(),
      percent_at_renewal: percentSchema.optional(),
      base_usd: amountSchema.optional(),
      attributed_amount_usd: amountSchema.optional(),
    })
    .nullable()
    .optional(),
});
export type SubscriptionRenewedData = z.infer<typeof subscriptionRenewedDataSchema>;

/** "carries access_until; other fields: not shown" */
export const subscriptionCanceledDataSchema = z.looseObject({
  access_until: timestampSchema.nullable(),
  subscription_id: z.string().optional(),
  cancel_at_period_end: z.boolean().optional(),
  reason: z.string().nullable().optional(),
});
export type SubscriptionCanceledData = z.infer<typeof subscriptionCanceledDataSchema>;

export type WebhookEvent =
  | { type: "subscription.refunded"; envelope: WebhookEnvelope; data: SubscriptionRefundedData }
  | { type: "subscription.renewed"; envelope: WebhookEnvelope; data: SubscriptionRenewedData }
  | { type: "subscription.canceled"; envelope: WebhookEnvelope; data: SubscriptionCanceledData }
  | { type: "other"; envelope: WebhookEnvelope; data: Record<string, unknown> };

export type WebhookParseResult = { success: true; event: WebhookEvent } | { success: false; issues: string[] };

/**
 * Parses an already-verified delivery. Unknown event types (the purchase.* family, anything new) come back as
 * "other" with their data intact: stored and shown, never fatal.
 */
export function parseWebhookEvent(body: unknown): WebhookParseResult {
  const envelope = webhookEnvelopeSchema.safeParse(body);
  if (!envelope.success) return { success: false, issues: formatIssues(envelope.error) };
  const value = envelope.data;
  const typed = (() => {
    switch (value.event_type) {
      case "subscription.refunded":
        return subscriptionRefundedDataSchema.safeParse(value.data);
      case "subscription.renewed":
        return subscriptionRenewedDataSchema.safeParse(value.data);
      case "subscription.canceled":
        return subscriptionCanceledDataSchema.safeParse(value.data);
      default:
        return null;
    }
  })();
  if (typed === null) return { success: true, event: { type: "other", envelope: value, data: value.data } };
  if (!typed.success) return { success: false, issues: formatIssues(typed.error, "data") };
  return { success: true, event: { type: value.event_type, envelope: value, data: typed.data } as WebhookEvent };
}
