import { z } from "zod";
import { subscriptionIdSchema } from "@/lib/lookup/schemas";
import { usdInputSchema } from "@/lib/money";
import { PERIOD_STATUSES } from "./schemas";
import { characterCount } from "@/core/characters";

/** What the service client's functions accept: checked before anything is sent. */

/** Checked before an id goes into a path: the subscription domain's one schema (lib/lookup/schemas.ts). */
export const subscriptionIdInputSchema = subscriptionIdSchema;

export const emailInputSchema = z
  .string()
  .trim()
  .min(3, { abort: true })
  .max(254, { abort: true })
  .refine((value) => value.includes("@") && !/\s/.test(value), { message: "must be an email address" });

const limitSchema = z.number().int().min(1).max(100);
const offsetSchema = z.number().int().min(0).max(100_000);

export const listPlayerSubscriptionsInputSchema = z.object({
  playerEmail: emailInputSchema,
  /** Statuses, or the word live (expands to the four live statuses); may be mixed: ["live", "canceled"]. */
  status: z.array(z.string().regex(/^[a-z_]+$/)).optional(),
  includePlayer: z.boolean().optional(),
  limit: limitSchema.optional(),
  offset: offsetSchema.optional(),
});
export type ListPlayerSubscriptionsInput = z.input<typeof listPlayerSubscriptionsInputSchema>;

/** "Cancel and refund reason: at most 500 characters", counted in characters. */
export const serviceReasonSchema = z
  .string()
  .refine((value) => characterCount(value) <= 500, { message: "must be at most 500 characters" });

export const cancelSubscriptionInputSchema = z.object({
  /** Default true at the service. */
  atPeriodEnd: z.boolean().optional(),
  /** "Cancel and refund reason: at most 500 characters" */
  reason: serviceReasonSchema.optional(),
});
export type CancelSubscriptionInput = z.input<typeof cancelSubscriptionInputSchema>;

export const changeAmountInputSchema = z.object({ amountUsd: usdInputSchema });
export type ChangeAmountInput = z.input<typeof changeAmountInputSchema>;

export const changePaymentMethodInputSchema = z
  .object({
    playerCardId: z.number().int().positive().optional(),
    walletOnly: z.boolean().optional(),
  })
  .refine((value) => value.playerCardId !== undefined || value.walletOnly !== undefined, {
    message: "give a card, wallet_only, or both",
  });
export type ChangePaymentMethodInput = z.input<typeof changePaymentMethodInputSchema>;

export const refundInputSchema = z.object({
  /** "at most 255, not sub_-prefixed, one per refund, reuse on retry" */
  clientRequestId: z
    .string()
    .min(1, { abort: true })
    .max(255, { abort: true })
    .refine((value) => !/^sub_/i.test(value), { message: "must not begin with sub_" }),
  periodSeq: z.number().int().min(1).optional(),
  amountUsd: usdInputSchema.optional(),
  reason: serviceReasonSchema.optional(),
});
export type RefundInput = z.input<typeof refundInputSchema>;

export const attributionReportInputSchema = z.object({
  /** "ISO 8601 date (read as 00:00:00Z) or datetime"; sent normalised to UTC. */
  start: z.string(),
  end: z.string(),
  recipientPlayerId: z.number().int().positive().optional(),
  subscriptionId: subscriptionIdInputSchema.optional(),
  limit: limitSchema.optional(),
  offset: offsetSchema.optional(),
});
export type AttributionReportInput = z.input<typeof attributionReportInputSchema>;

export const subscriptionAttributionInputSchema = z.object({
  status: z.array(z.enum(PERIOD_STATUSES)).optional(),
  limit: limitSchema.optional(),
  offset: offsetSchema.optional(),
});
export type SubscriptionAttributionInput = z.input<typeof subscriptionAttributionInputSchema>;

export const periodReportInputSchema = z.object({
  /** Lets the pacer count the call against the subscription's detail limit when the caller knows it. */
  subscriptionId: subscriptionIdInputSchema.optional(),
});
export type PeriodReportInput = z.input<typeof periodReportInputSchema>;
