import { z } from "zod";
import {
  amountSchema,
  countSchema,
  intSchema,
  paginationSchema,
  revenueShareSchema,
  timestampSchema,
  idTextSchema,
  shownValueSchema,
} from "./schema-parts";

/** Players, balances, cards, subscriptions and refunds as the service answers them (see schemas.ts). */

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

export const subscriptionRevenueShareSchema = revenueShareSchema;

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
  pcstore_agreement_status: shownValueSchema(["pending", "active", "canceled"]).nullable(),
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

export const refundRevenueShareAttributionSchema = revenueShareSchema.extend({
  original_attributed_amount_usd: amountSchema,
  refunded_attributed_amount_usd: amountSchema,
  /** "the corrected figure to pay the recipient; nothing moves" */
  net_attributed_amount_usd: amountSchema,
});
export type RefundRevenueShareAttribution = z.infer<typeof refundRevenueShareAttributionSchema>;

export const refundReceiptSchema = z.object({
  status: z.literal("refunded"),
  idempotent_replay: z.boolean(),
  refund_key: idTextSchema,
  client_request_id: z.string(),
  subscription_id: z.string(),
  period_seq: intSchema,
  transaction_id: idTextSchema,
  refunded_amount_usd: amountSchema,
  total_refunded_amount_usd: amountSchema,
  remaining_refundable_usd: amountSchema,
  is_full_refund: z.boolean(),
  funding_shape: shownValueSchema(["wallet", "card", "mixed"]),
  /** Signed; may be negative (coins minted by the card charge are taken back). */
  balance_delta_coins: amountSchema,
  card_refunded_usd: amountSchema,
  /** Null, or left out (the spec's fields beyond those it shows are not promised on every receipt). */
  processor_refund_reference: z.string().nullish(),
  processor_refund_adopted: z.boolean(),
  invo_fee_retained: z.boolean(),
  partner_revenue_reversed_usd: amountSchema,
  partner_revenue_reversal_mode: shownValueSchema(["full", "prorata"]),
  reason: z.string().nullish(),
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
  transaction_id: idTextSchema,
  status: z.string().optional(),
  idempotent_replay: z.boolean().optional(),
  client_request_id: z.string().optional(),
  subscription_id: z.string().optional(),
  note: z.string().optional(),
  message: z.string().optional(),
});
export type RefundAlreadyProcessed = z.infer<typeof refundAlreadyProcessedSchema>;
