import { z } from "zod";
import {
  amountSchema,
  countSchema,
  intSchema,
  notSettledByServiceSchema,
  paginationSchema,
  percentSchema,
  revenueShareSchema,
  timestampSchema,
  idTextSchema,
  shownValueSchema,
} from "./schema-parts";
import { FUNDING_RAILS } from "./subscription-schemas";

/** The attribution reports (see schemas.ts). */

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
  /**
   * Named without a shape: read as the report's recipient block (for the period page's name) when it is one, and
   * dropped otherwise (an id, text), never a reason to refuse a page.
   */
  recipient: recipientIdentitySchema.partial().nullable().optional().catch(undefined),
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
  transaction_id: idTextSchema.nullable(),
  /** Null when the wallet covered the period. */
  mint_order_id: idTextSchema.nullable(),
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
  /** Only shown and kept (lib/lookup/plain-words.ts): a basis the spec adds later is kept as written. */
  partner_revenue_reversal_basis: shownValueSchema(REFUND_REVERSAL_BASES),
  is_full_refund: z.boolean(),
  settled_by_invo: notSettledByServiceSchema,
  /** Listed on the period report's events; not on the aggregate report's. */
  refund_transaction_id: idTextSchema.nullable().optional(),
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
      /** Type not shown (a flag or a restatement of end): kept as received. */
      end_exclusive: z.unknown().optional(),
    }),
    /** The filters echoed back; their types are not shown, and nothing reads them: kept as received. */
    filters: z.record(z.string(), z.unknown()).optional(),
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

export const currentRevenueShareSchema = revenueShareSchema.extend({
  /** Listed on this block with no value given (the spec repeats `false` elsewhere): read as given, or absent. */
  settled_by_invo: z.boolean().nullish(),
  /** "applies_to future_renewals_only" */
  applies_to: z.string(),
  is_payout_basis: z.literal(false),
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

/**
 * The period report's `subscription`, whose fields the spec does not show: read for nothing (the period's own line
 * names its subscription and item), so any shape is taken.
 */
const periodReportSubscriptionSchema = z.unknown().optional();

export const periodReportSchema = z.object({
  status: z.string(),
  attribution_notice: attributionNoticeSchema,
  subscription: periodReportSubscriptionSchema,
  period: renewalLineSchema,
  fee_legs: feeLegsSchema,
  refunds: z.object({
    refund_count: countSchema,
    refunded_to_date_usd: amountSchema,
    latest_refund_at: timestampSchema.nullable(),
    basis: z.enum(REVERSAL_BASES),
    events: z.array(refundEventSchema.extend({ refund_transaction_id: idTextSchema.nullable() })),
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
