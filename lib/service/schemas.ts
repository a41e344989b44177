import { z } from "zod";
import { decimalStringSchema } from "@/lib/money";

/**
 * Response bodies of the service routes Payout Desk uses (../shared/spec/service-api.md).
 *
 * Objects strip unknown fields (zod's default; nothing here is strict), so a field the service adds later never breaks
 * a parse. Fields the spec lists are required; "or null" is `.nullable()`; fields the spec marks "not shown", or that
 * appear only in some cases, are `.optional()`. Amounts stay decimal strings. Webhook data keeps unknown fields
 * (`looseObject`) because the event is stored as received.
 */

/** "Decimal amounts and coin amounts are strings." */
const amountSchema = decimalStringSchema;

/** ISO 8601 as the service writes it; kept as text so a stored figure is exactly what the service sent. */
export const timestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/, {
    message: "must be an ISO 8601 timestamp",
  });

/** A percentage (10.00). The spec does not say string or number; a number is turned into its decimal text. */
export const percentSchema = z.union([decimalStringSchema, z.number().transform((value) => String(value))]);

const intSchema = z.number().int();
const countSchema = z.number().int().nonnegative();

/** "settled_by_invo: false is repeated on totals, on each recipient, on each renewal line, ..." */
const notSettledByServiceSchema = z.literal(false);

export const paginationSchema = z.object({
  total_count: countSchema,
  limit: countSchema,
  offset: countSchema,
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

// --- Players, balances, cards -------------------------------------------------------------------------------------

export const playerBalanceSchema = z.object({
  player: z.object({
    player_id: intSchema,
    player_name: z.string().nullable(),
    player_email: z.string(),
    /** Stable cross-game key for the same human. */
    identity_id: z.string().nullable(),
    date_joined: timestampSchema.nullable(),
  }),
  balances: z.array(
    z.object({
      currency_id: intSchema,
      currency_name: z.string(),
      available_balance: amountSchema,
      reserved_balance: amountSchema,
      total_balance: amountSchema,
    }),
  ),
  summary: z.object({
    total_value: amountSchema,
    currency_count: countSchema,
    has_funds: z.boolean(),
  }),
  last_updated: timestampSchema,
});
export type PlayerBalance = z.infer<typeof playerBalanceSchema>;

/** "No processor-side identifier is ever returned. The integer id is the handle." */
export const savedCardSchema = z.object({
  id: intSchema,
  last_four: z.string(),
  brand: z.string(),
  exp_month: intSchema,
  exp_year: intSchema,
  created_at: timestampSchema,
});
export type SavedCard = z.infer<typeof savedCardSchema>;

/** "200 {cards: Saved card[]} newest first, expired cards filtered out; unknown player returns an empty list" */
export const playerCardsResponseSchema = z.object({ cards: z.array(savedCardSchema) });
export type PlayerCardsResponse = z.infer<typeof playerCardsResponseSchema>;

// --- Subscriptions ------------------------------------------------------------------------------------------------

export const FUNDING_RAILS = ["card", "pcstore"] as const;

export const subscriptionRevenueShareSchema = z.object({
  recipient_player_id: intSchema,
  percent: percentSchema,
  settled_by_invo: notSettledByServiceSchema,
});

export const subscriptionSchema = z.object({
  subscription_id: z.string(),
  game_id: z.string(),
  player_id: intSchema,
  client_request_id: z.string().nullable(),
  /** Open set: active, canceled, expired, awaiting_authentication, pending_pcstore_authorization, dunning, ... */
  status: z.string(),
  amount_usd: amountSchema,
  pending_amount_usd: amountSchema.nullable(),
  interval: z.string(),
  interval_count: intSchema,
  item_id: z.string(),
  item_name: z.string(),
  current_period_start: timestampSchema.nullable(),
  current_period_end: timestampSchema.nullable(),
  period_seq: intSchema,
  next_charge_at: timestampSchema.nullable(),
  cancel_at_period_end: z.boolean(),
  trial_end: timestampSchema.nullable(),
  canceled_at: timestampSchema.nullable(),
  ended_at: timestampSchema.nullable(),
  wallet_only: z.boolean(),
  has_payment_method: z.boolean(),
  funding_rail: z.enum(FUNDING_RAILS),
  pcstore_agreement_status: z.enum(["pending", "active", "canceled"]).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  /** "Six fields, all null until supplied; field names: not shown." */
  consent: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  revenue_share: subscriptionRevenueShareSchema.nullable(),
  /** Entitlement boundary; null until something has been paid. */
  paid_through: timestampSchema.nullable(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** "include_player (boolean, default false) adds a player block" whose fields are not shown. */
// The player block of include_player; the service may send null for a player it cannot find.
const includedPlayerSchema = z.record(z.string(), z.unknown()).nullable().optional();

export const getSubscriptionResponseSchema = z.object({
  status: z.string(),
  subscription: subscriptionSchema,
  player: includedPlayerSchema,
});
export type GetSubscriptionResponse = z.infer<typeof getSubscriptionResponseSchema>;

export const listPlayerSubscriptionsResponseSchema = z.object({
  status: z.string(),
  player_email: z.string(),
  subscriptions: z.array(subscriptionSchema),
  pagination: paginationSchema,
  player: includedPlayerSchema,
});
export type ListPlayerSubscriptionsResponse = z.infer<typeof listPlayerSubscriptionsResponseSchema>;

const cancelCommonSchema = z.object({
  status: z.string(),
  subscription: subscriptionSchema.optional(),
  access_until: timestampSchema.nullable().optional(),
  paid_through: timestampSchema.nullable().optional(),
  // "plus pcstore_agreement_status and pcstore_agreement_canceled on a pcstore subscription"
  pcstore_agreement_status: z.string().nullable().optional(),
  pcstore_agreement_canceled: z.boolean().optional(),
});

/**
 * Cancel answers 200 either with the change, or for "canceled or expired: 200 with already_canceled true and
 * final_status" (other fields then not promised).
 */
export const cancelSubscriptionResponseSchema = z.discriminatedUnion("already_canceled", [
  cancelCommonSchema.extend({
    already_canceled: z.literal(false),
    cancel_at_period_end: z.boolean(),
    effective_at: timestampSchema.nullable(),
    current_period_end: timestampSchema.nullable(),
    access_until: timestampSchema.nullable(),
    paid_through: timestampSchema.nullable(),
    subscription: subscriptionSchema,
    // "plus terminated_immediately, downgrade_reason and message in the downgrade case"
    terminated_immediately: z.boolean().optional(),
    downgrade_reason: z.string().nullable().optional(),
    message: z.string().nullable().optional(),
  }),
  cancelCommonSchema.extend({
    already_canceled: z.literal(true),
    final_status: z.string(),
    cancel_at_period_end: z.boolean().optional(),
    effective_at: timestampSchema.nullable().optional(),
    current_period_end: timestampSchema.nullable().optional(),
  }),
]);
export type CancelSubscriptionResponse = z.infer<typeof cancelSubscriptionResponseSchema>;

export const changeAmountResponseSchema = z.object({
  status: z.string(),
  old_amount_usd: amountSchema,
  new_amount_usd: amountSchema,
  /** Stays set when an increase is staged but never applied (over double the agreed price, or over 500.00). */
  pending_amount_usd: amountSchema.nullable(),
  change_queued: z.boolean(),
  applies_from: timestampSchema.nullable(),
  applies_from_period_seq: intSchema.nullable(),
  paid_through: timestampSchema.nullable(),
  current_period_end: timestampSchema.nullable(),
  prorated: z.boolean(),
  subscription: subscriptionSchema,
});
export type ChangeAmountResponse = z.infer<typeof changeAmountResponseSchema>;

export const changePaymentMethodResponseSchema = z.object({
  status: z.string(),
  replaced: z.boolean(),
  wallet_only: z.boolean(),
  card: savedCardSchema.nullable(),
  subscription: subscriptionSchema,
});
export type ChangePaymentMethodResponse = z.infer<typeof changePaymentMethodResponseSchema>;

// --- Refunds ------------------------------------------------------------------------------------------------------

export const refundRevenueShareAttributionSchema = z.object({
  recipient_player_id: intSchema,
  percent: percentSchema,
  original_attributed_amount_usd: amountSchema,
  refunded_attributed_amount_usd: amountSchema,
  /** "the corrected figure to pay the recipient; nothing moves" */
  net_attributed_amount_usd: amountSchema,
  settled_by_invo: notSettledByServiceSchema,
});
export type RefundRevenueShareAttribution = z.infer<typeof refundRevenueShareAttributionSchema>;

export const refundReceiptSchema = z.object({
  status: z.literal("refunded"),
  idempotent_replay: z.boolean(),
  refund_key: z.string(),
  client_request_id: z.string(),
  subscription_id: z.string(),
  period_seq: intSchema,
  transaction_id: z.string(),
  refunded_amount_usd: amountSchema,
  total_refunded_amount_usd: amountSchema,
  remaining_refundable_usd: amountSchema,
  is_full_refund: z.boolean(),
  funding_shape: z.enum(["wallet", "card", "mixed"]),
  /** Signed; may be negative (coins minted by the card charge are taken back). */
  balance_delta_coins: amountSchema,
  card_refunded_usd: amountSchema,
  processor_refund_reference: z.string().nullable(),
  processor_refund_adopted: z.boolean(),
  invo_fee_retained: z.boolean(),
  partner_revenue_reversed_usd: amountSchema,
  partner_revenue_reversal_mode: z.enum(["full", "prorata"]),
  reason: z.string().nullable(),
  refunded_at: timestampSchema,
  new_balance: amountSchema.nullable(),
  revenue_share_attribution: refundRevenueShareAttributionSchema.nullable(),
  /** "on the receipt since 2026-09-28"; a stored receipt from before then replays without it. */
  card_fee_charged_to_partner_usd: amountSchema.optional(),
});
export type RefundReceipt = z.infer<typeof refundReceiptSchema>;

/**
 * "A repeated client_request_id returns the stored receipt with idempotent_replay true, or, if the receipt was lost, a
 * reduced body with transaction_id and a note that the refund was already processed." Field names beyond
 * transaction_id: not shown.
 */
export const refundAlreadyProcessedSchema = z.object({
  transaction_id: z.string(),
  status: z.string().optional(),
  idempotent_replay: z.boolean().optional(),
  client_request_id: z.string().optional(),
  subscription_id: z.string().optional(),
  note: z.string().optional(),
  message: z.string().optional(),
});
export type RefundAlreadyProcessed = z.infer<typeof refundAlreadyProcessedSchema>;

// --- Attribution reporting ----------------------------------------------------------------------------------------

/** "Attribution notice (on every reporting response)" */
export const attributionNoticeSchema = z.object({
  settled_by_invo: notSettledByServiceSchema,
  invo_has_paid_no_recipient: z.literal(true),
  document_type: z.literal("attribution_report"),
  not_a_remittance_advice: z.literal(true),
  payer: z.literal("partner"),
  statement: z.string(),
});
export type AttributionNotice = z.infer<typeof attributionNoticeSchema>;

export const PERIOD_STATUSES = ["pending", "paid", "failed", "forgiven", "refunded"] as const;
export const periodStatusSchema = z.enum(PERIOD_STATUSES);
export type PeriodStatus = z.infer<typeof periodStatusSchema>;

/** The four unattributed_reasons keys; the renewal line's attribution_unavailable_reason is one of them or null. */
export const UNATTRIBUTED_REASONS = [
  "no_revenue_share_configured",
  "spend_order_not_found",
  "attribution_not_recorded",
  "attribution_malformed",
] as const;

export const recipientIdentitySchema = z.object({
  player_id: intSchema,
  /** False when the player record cannot be found; identity fields are then null. */
  resolved: z.boolean(),
  player_email: z.string().nullable(),
  player_name: z.string().nullable(),
  identity_id: z.string().nullable(),
});
export type RecipientIdentity = z.infer<typeof recipientIdentitySchema>;

export const renewalAttributionSchema = z.object({
  recipient_player_id: intSchema,
  /** The rate in force at renewal; figures are the snapshot recorded at settlement, never recomputed. */
  percent_at_renewal: percentSchema,
  /** Amount after the service fee. */
  base_usd: amountSchema,
  attributed_amount_usd: amountSchema,
  settled_by_invo: notSettledByServiceSchema,
  /** Shape not listed beyond its name; read as the report's recipient block when present. */
  recipient: recipientIdentitySchema.partial().nullable().optional(),
});
export type RenewalAttribution = z.infer<typeof renewalAttributionSchema>;

/**
 * A renewal line ("periods[]"), shared by the aggregate report, the per-subscription route and the period report.
 * Never-paid cycles appear on the per-subscription route with attribution null, so figures a charge would set are
 * nullable.
 */
export const renewalLineSchema = z.object({
  period_id: intSchema,
  subscription_id: z.string(),
  period_seq: intSchema,
  item_id: z.string(),
  item_name: z.string(),
  status: periodStatusSchema,
  period_start: timestampSchema,
  period_end: timestampSchema,
  paid_at: timestampSchema.nullable(),
  /** Price snapshot at charge. */
  amount_usd: amountSchema,
  invo_fee_usd: amountSchema.nullable(),
  /** Net of reversal. */
  partner_revenue_usd: amountSchema.nullable(),
  partner_revenue_settled_usd: amountSchema.nullable(),
  partner_revenue_reversed_usd: amountSchema.nullable(),
  partner_leg_reversed: z.boolean(),
  funding: z
    .object({
      amount_coins: amountSchema.nullable(),
      /** Coins, never converted; always 0.00 on card periods charged since 2026-09-17. */
      balance_applied_coins: amountSchema.nullable(),
      card_charged_usd: amountSchema.nullable(),
      rail: z.enum(FUNDING_RAILS),
      pcstore_charged_usd: amountSchema.nullable(),
    })
    .nullable(),
  refund: z
    .object({
      refunded_amount_usd: amountSchema.nullable(),
      refunded_at: timestampSchema.nullable(),
    })
    .nullable(),
  transaction_id: z.string().nullable(),
  /** Null when the wallet covered the period. */
  mint_order_id: z.string().nullable(),
  attribution: renewalAttributionSchema.nullable(),
  attribution_unavailable_reason: z.string().nullable(),
  settled_by_invo: notSettledByServiceSchema,
  /** attributed_amount_usd stays the recorded snapshot even if base_matches_settled_fee is false. */
  reconciliation: z
    .object({
      checked: z.boolean(),
      expected_base_usd: amountSchema.nullable(),
      recorded_base_usd: amountSchema.nullable(),
      base_matches_settled_fee: z.boolean().nullable(),
    })
    .nullable(),
});
export type RenewalLine = z.infer<typeof renewalLineSchema>;

export const REFUND_REVERSAL_BASES = ["clawback", "sale_fee_row_reversed", "none"] as const;

export const refundEventSchema = z.object({
  refunded_at: timestampSchema,
  refunded_amount_usd: amountSchema,
  cumulative_refunded_before_usd: amountSchema,
  cumulative_refunded_after_usd: amountSchema,
  reversed_attributed_usd: amountSchema,
  partner_revenue_reversed_usd: amountSchema,
  partner_revenue_reversal_basis: z.enum(REFUND_REVERSAL_BASES),
  is_full_refund: z.boolean(),
  settled_by_invo: notSettledByServiceSchema,
  /** Listed on the period report's events; not on the aggregate report's. */
  refund_transaction_id: z.string().nullable().optional(),
});
export type RefundEvent = z.infer<typeof refundEventSchema>;

export const REVERSAL_BASES = ["refund_receipts", "period_row"] as const;

/** "each reversal is reported in the window of the refund itself" */
export const reversalSchema = z.object({
  period_id: intSchema,
  subscription_id: z.string(),
  period_seq: intSchema,
  status: periodStatusSchema,
  paid_at: timestampSchema.nullable(),
  settled_in_this_window: z.boolean(),
  amount_usd: amountSchema,
  originally_attributed_usd: amountSchema,
  /** Cumulative, reference only. */
  refunded_to_date_usd: amountSchema,
  latest_refund_at: timestampSchema.nullable(),
  /** This window only. */
  reversed_attributed_usd: amountSchema,
  partner_revenue_reversed_usd: amountSchema,
  refund_events: z.array(refundEventSchema),
  /** refund_receipts = exact per event; period_row = coarse fallback, wholly in the window of the latest refund. */
  reversal_basis: z.enum(REVERSAL_BASES),
  /** Settled and fully refunded inside the window: pay nothing. */
  nets_to_zero_in_window: z.boolean(),
  note: z.string().nullable().optional(),
  settled_by_invo: notSettledByServiceSchema.optional(),
});
export type Reversal = z.infer<typeof reversalSchema>;

/** "object of counts" keyed by the four reasons; kept as a record so a new reason is stored, not dropped. */
export const unattributedReasonsSchema = z.record(z.string(), countSchema);

export const attributionTotalsSchema = z.object({
  renewals_settled: countSchema,
  settled_gross_usd: amountSchema,
  /** Never reversed by a refund. */
  invo_fee_usd: amountSchema,
  partner_revenue_settled_usd: amountSchema,
  /** Revenue only; the card fee charged to the partner on a refund is a separate payout line. */
  partner_revenue_reversed_usd: amountSchema,
  /** Settled less reversed; movement for the window, not a balance. */
  partner_revenue_usd: amountSchema,
  renewals_with_attribution: countSchema,
  renewals_without_attribution: countSchema,
  unattributed_reasons: unattributedReasonsSchema,
  gross_attributed_usd: amountSchema,
  reversed_attributed_usd: amountSchema,
  net_attributed_usd: amountSchema,
  renewals_settled_then_fully_reversed: countSchema,
  refund_events_in_window: countSchema,
  reversals_without_receipts: countSchema,
  recipient_count: countSchema,
  settled_by_invo: notSettledByServiceSchema,
});
export type AttributionTotals = z.infer<typeof attributionTotalsSchema>;

export const attributionRecipientSchema = z.object({
  recipient: recipientIdentitySchema,
  renewal_count: countSchema,
  subscription_count: countSchema,
  gross_attributed_usd: amountSchema,
  reversed_attributed_usd: amountSchema,
  /** The figure to pay. */
  net_attributed_usd: amountSchema,
  /** Null when the recipient has only reversals in the window. */
  first_paid_at: timestampSchema.nullable(),
  last_paid_at: timestampSchema.nullable(),
  settled_by_invo: notSettledByServiceSchema,
  /** Capped at 500 lines ("Inline evidence: 500 lines per recipient"). */
  periods: z.array(renewalLineSchema),
  periods_truncated: z.boolean(),
  reversals: z.array(reversalSchema),
  reversal_count: countSchema,
  reversals_truncated: z.boolean(),
});
export type AttributionRecipient = z.infer<typeof attributionRecipientSchema>;

export const attributionReportSchema = z.object({
  status: z.string(),
  attribution_notice: attributionNoticeSchema,
  report: z.object({
    type: z.string(),
    game_id: z.string(),
    generated_at: timestampSchema,
    window: z.object({
      start: timestampSchema,
      end: timestampSchema,
      /** Type not shown (a flag or a restatement of end). */
      end_exclusive: z.union([z.boolean(), z.string()]),
    }),
    filters: z.object({
      recipient_player_id: intSchema.nullable(),
      subscription_id: z.string().nullable(),
    }),
    /** Prose objects; stored as received. */
    derivation: z.record(z.string(), z.unknown()),
    known_limits: z.record(z.string(), z.unknown()),
  }),
  /** Never paginated; platform-wide totals are accumulated before the recipient filter. */
  totals: attributionTotalsSchema,
  recipients: z.array(attributionRecipientSchema),
  pagination: paginationSchema,
});
export type AttributionReport = z.infer<typeof attributionReportSchema>;

export const reportSubscriptionSchema = z.object({
  subscription_id: z.string(),
  status: z.string(),
  item_id: z.string(),
  item_name: z.string(),
  current_amount_usd: amountSchema,
  interval: z.string(),
  interval_count: intSchema,
  created_at: timestampSchema,
});
export type ReportSubscription = z.infer<typeof reportSubscriptionSchema>;

export const currentRevenueShareSchema = z.object({
  recipient_player_id: intSchema,
  percent: percentSchema,
  /** "applies_to future_renewals_only" */
  applies_to: z.string(),
  is_payout_basis: z.literal(false),
  settled_by_invo: notSettledByServiceSchema,
  note: z.string().nullable(),
  updated_at: timestampSchema.nullable(),
});
export type CurrentRevenueShare = z.infer<typeof currentRevenueShareSchema>;

export const subscriptionAttributionSchema = z.object({
  status: z.string(),
  attribution_notice: attributionNoticeSchema,
  subscription: reportSubscriptionSchema,
  current_revenue_share: currentRevenueShareSchema.nullable(),
  /** Null only past the 20,000-renewal cap. */
  lifetime_totals: attributionTotalsSchema.extend({ recipient_player_ids: z.array(intSchema) }).nullable(),
  /** Newest first; never-paid cycles included with attribution null. */
  periods: z.array(renewalLineSchema),
  pagination: paginationSchema,
});
export type SubscriptionAttribution = z.infer<typeof subscriptionAttributionSchema>;

export const feeLegsSchema = z.object({
  invo_fee_usd: amountSchema,
  invo_fee_percent: percentSchema,
  partner_revenue_usd: amountSchema,
  partner_revenue_settled_usd: amountSchema,
  partner_revenue_reversed_usd: amountSchema,
  partner_revenue_percent: percentSchema,
  partner_leg_reversed: z.boolean(),
  /** International card fee. */
  pass_through_fees_usd: amountSchema,
  chargeback_fees_usd: amountSchema,
  disputed_amount_held_usd: amountSchema,
  /** "0.00 unless refunded or lost to an uncovered chargeback; since 2026-09-28" */
  card_fee_charged_to_partner_usd: amountSchema.optional(),
  /** Settled less reversed, pass-through, chargeback, held and card fees; may be negative. */
  partner_revenue_after_fees_usd: amountSchema,
  source: z.string(),
  note: z.string().nullable(),
});
export type FeeLegs = z.infer<typeof feeLegsSchema>;

export const periodReportSchema = z.object({
  status: z.string(),
  attribution_notice: attributionNoticeSchema,
  subscription: reportSubscriptionSchema,
  period: renewalLineSchema,
  fee_legs: feeLegsSchema,
  refunds: z.object({
    refund_count: countSchema,
    refunded_to_date_usd: amountSchema,
    latest_refund_at: timestampSchema.nullable(),
    basis: z.enum(REVERSAL_BASES),
    events: z.array(refundEventSchema.extend({ refund_transaction_id: z.string().nullable() })),
  }),
  charge: z.object({
    attempts_for_period: countSchema,
    paid_attempt_no: intSchema.nullable(),
    paid_attempt_at: timestampSchema.nullable(),
    outcome: z.string().nullable(),
  }),
  current_revenue_share: currentRevenueShareSchema.nullable(),
});
export type PeriodReport = z.infer<typeof periodReportSchema>;

// --- Webhooks -----------------------------------------------------------------------------------------------------

/** "{event_id, event_type, created_at, tenant_id (the game id), data}" */
export const webhookEnvelopeSchema = z.object({
  event_id: z.string(),
  event_type: z.string(),
  created_at: timestampSchema,
  tenant_id: z.union([z.string(), z.number().transform((value) => String(value))]),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

export const subscriptionRefundedDataSchema = z.looseObject({
  subscription_id: z.string(),
  item_id: z.string(),
  period_seq: intSchema,
  transaction_id: z.string(),
  /** Links the event to the refund attempt made from Payout Desk; a refund made elsewhere may carry none. */
  client_request_id: z.string().nullable(),
  player_email: z.string().nullable(),
  identity_id: z.string().nullable(),
  /** This refund. */
  amount_usd: amountSchema,
  /** Cumulative. */
  total_refunded_amount_usd: amountSchema,
  period_amount_usd: amountSchema,
  is_full_refund: z.boolean(),
  reason: z.string().nullable(),
  period_status: z.string(),
  refund: z.looseObject({
    funding_shape: z.string(),
    balance_delta_coins: amountSchema,
    card_refunded_usd: amountSchema,
    processor_refund_adopted: z.boolean(),
    new_balance: amountSchema.nullable(),
    invo_fee_retained: z.boolean(),
    partner_revenue_reversed_usd: amountSchema,
    partner_revenue_reversal_mode: z.string(),
  }),
  revenue_share_attribution: refundRevenueShareAttributionSchema.nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
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

/** Issue paths and codes only: a message built from them never quotes a value from the body. */
export function formatIssues(error: z.ZodError, prefix?: string): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== "").join(".");
    return `${path || "(root)"}: ${issue.code}`;
  });
}
