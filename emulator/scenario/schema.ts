import { z } from "zod";
import { parseInstant } from "../time";
import { SUBSCRIPTION_ID_PATTERN } from "@/lib/lookup/schemas";

/**
 * The scenario file: the state the emulator starts from. Shape of issue 3, with optional extras. Published as JSON
 * Schema in emulator/scenario.schema.json (generated from this file by `scenario/write-schema.ts`).
 */

const usdSchema = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, { message: "must be a USD amount such as 10.00" })
  .describe("USD amount as a decimal string with at most two decimals");
const signedDecimalSchema = z
  .string()
  .regex(/^-?\d{1,15}(\.\d{1,2})?$/, { message: "must be a decimal such as 120.00" })
  .describe("decimal string with at most two decimals, may be negative");
const percentSchema = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,2})?$/, { message: "must be a percent such as 20.00" })
  .describe("percent as a decimal string, 0 to 100");
const instantSchema = z
  .string()
  .refine((value) => parseInstant(value) !== null, { message: "must be an ISO 8601 date or datetime" })
  .describe("ISO 8601 datetime (naive = UTC) or date");

export const webhookScenarioSchema = z.object({
  webhook_id: z.string().min(1).optional(),
  url: z.string().url(),
  secret: z.string().min(1).describe("signing secret (whsec_...)"),
  events: z.array(z.string().min(1)).min(1).default(["*"]).describe("event types; * subscribes to all"),
});

export const gameScenarioSchema = z.object({
  game_id: z.string().min(1).max(100),
  name: z.string().min(1),
  status: z.string().min(1).describe("live and testing are served; any other status answers 403"),
  secret: z.string().min(1).describe("X-Game-Secret-Key value"),
  previous_secret: z
    .string()
    .min(1)
    .optional()
    .describe("a rotated-out secret, valid 7 days after previous_secret_rotated_at"),
  previous_secret_rotated_at: instantSchema.optional(),
  fee_percent: percentSchema.default("10.00"),
  environment: z
    .enum(["both", "sandbox", "production"])
    .default("both")
    .describe("where the key is accepted: under /sandbox, at /, or both"),
  currency_name: z.string().min(1).default("Coins"),
  webhooks: z.array(webhookScenarioSchema).default([]),
});

export const playerScenarioSchema = z.object({
  game_id: z.string().min(1),
  player_id: z.number().int().positive(),
  email: z.string().min(3).max(254),
  name: z.string().nullable().default(null),
  identity_id: z.string().nullable().default(null),
  date_joined: instantSchema,
  balance_coins: signedDecimalSchema.default("0.00").describe("current wallet balance in coins"),
  reserved_coins: usdSchema.default("0.00"),
});

export const cardScenarioSchema = z.object({
  game_id: z.string().min(1),
  player_id: z.number().int().positive(),
  card_id: z.number().int().positive(),
  last_four: z.string().regex(/^\d{4}$/),
  brand: z.string().min(1).default("visa"),
  exp_month: z.number().int().min(1).max(12),
  exp_year: z.number().int().min(2000).max(2100),
  created_at: instantSchema,
  removed: z.boolean().default(false),
});

export const attributionStateSchema = z.enum([
  "recorded",
  "spend_order_not_found",
  "attribution_not_recorded",
  "attribution_malformed",
]);

export const periodScenarioSchema = z.object({
  period_id: z.number().int().positive().optional(),
  period_seq: z.number().int().positive(),
  status: z.enum(["pending", "paid", "failed", "forgiven", "refunded"]),
  period_start: instantSchema,
  period_end: instantSchema,
  paid_at: instantSchema.optional().describe("required for paid and refunded periods"),
  amount_usd: usdSchema.optional().describe("price snapshot; defaults to the subscription's amount_usd"),
  attribution: attributionStateSchema.default("recorded"),
  percent_at_renewal: percentSchema
    .optional()
    .describe("rate in force at the renewal; defaults to revenue_share.percent"),
  fee_percent: percentSchema.optional().describe("service fee percent at the charge; defaults to the game's"),
  recorded_base_usd: usdSchema
    .optional()
    .describe("simulates drift: the attribution base recorded instead of the rule's"),
  funding: z
    .object({
      balance_applied_coins: usdSchema.optional(),
      card_charged_usd: usdSchema.optional(),
      pcstore_charged_usd: usdSchema.optional(),
    })
    .optional()
    .describe("how the period was paid; defaults: wallet-only -> wallet, pcstore -> pcstore, card -> card"),
  mint_order_id: z
    .string()
    .nullable()
    .optional()
    .describe("null on a card-charged period simulates MINT_ORDER_MISSING"),
  payment_reference: z
    .string()
    .nullable()
    .optional()
    .describe("null on a card-charged period simulates NO_PAYMENT_REFERENCE"),
  attempts: z.number().int().positive().optional(),
  pass_through_fees_usd: usdSchema.optional(),
  chargeback_fees_usd: usdSchema.optional(),
  disputed_amount_held_usd: usdSchema.optional(),
});

export const refundScenarioSchema = z.object({
  period_seq: z.number().int().positive(),
  amount_usd: usdSchema,
  refunded_at: instantSchema,
  client_request_id: z.string().min(1).max(255).optional(),
  reason: z.string().max(500).optional(),
  receipt: z.boolean().default(true).describe("false: known only from the period row (coarse basis)"),
});

export const subscriptionStatusSchema = z.enum([
  "active",
  "past_due",
  "awaiting_authentication",
  "pending_pcstore_authorization",
  "canceled",
  "expired",
]);

export const subscriptionScenarioSchema = z.object({
  game_id: z.string().min(1),
  subscription_id: z.string().regex(SUBSCRIPTION_ID_PATTERN, { message: "must look like SUB_<epoch>_<8 characters>" }),
  player_id: z.number().int().positive(),
  client_request_id: z.string().min(1).max(255).optional(),
  item_id: z.string().min(1),
  item_name: z.string().min(1),
  amount_usd: usdSchema,
  pending_amount_usd: usdSchema.nullable().optional(),
  last_agreed_amount_usd: usdSchema.optional().describe("base of the double-or-500 rule; defaults to amount_usd"),
  interval: z.enum(["day", "week", "month", "year"]).default("month"),
  interval_count: z.number().int().positive().default(1),
  created_at: instantSchema,
  status: subscriptionStatusSchema,
  funding_rail: z.enum(["card", "pcstore"]).default("card"),
  wallet_only: z.boolean().default(false),
  card_id: z.number().int().positive().nullable().optional(),
  pcstore_agreement_status: z.enum(["pending", "active", "canceled"]).nullable().optional(),
  revenue_share: z
    .object({
      recipient_player_id: z.number().int().positive(),
      percent: percentSchema,
      updated_at: instantSchema.optional(),
    })
    .nullable()
    .default(null),
  cancel_at_period_end: z.boolean().default(false),
  canceled_at: instantSchema.nullable().optional(),
  ended_at: instantSchema.nullable().optional(),
  trial_end: instantSchema.nullable().optional(),
  next_charge_at: instantSchema
    .nullable()
    .optional()
    .describe(
      "null or absent on canceled, expired and pending_pcstore_authorization subscriptions (a value is refused)",
    ),
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  periods: z.array(periodScenarioSchema).default([]),
  refunds: z.array(refundScenarioSchema).default([]),
});

export const scenarioSchema = z.object({
  $schema: z.string().optional(),
  clock: instantSchema.describe("the emulator clock at load"),
  games: z.array(gameScenarioSchema).min(1),
  players: z.array(playerScenarioSchema).default([]),
  cards: z.array(cardScenarioSchema).default([]),
  subscriptions: z.array(subscriptionScenarioSchema).default([]),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type SubscriptionScenario = z.output<typeof subscriptionScenarioSchema>;
export type PeriodScenario = z.output<typeof periodScenarioSchema>;
