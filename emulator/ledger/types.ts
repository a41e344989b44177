import type { Decimal } from "decimal.js";
import type { Interval, Millis } from "../time";

/** The state the emulator keeps: a small ledger, in memory. Amounts are Decimals, instants epoch milliseconds. */

export type GameEnvironment = "both" | "sandbox" | "production";

export type WebhookSecret = { version: number; secret: string; validUntil: Millis | null };

export type WebhookEndpoint = {
  webhookId: string;
  url: string;
  /** Event types, `*` for all. */
  events: string[];
  /** Newest first; older versions sign deliveries until validUntil (the 7-day rotation grace). */
  secrets: WebhookSecret[];
};

export type GameState = {
  gameId: string;
  name: string;
  /** live and testing are served; any other status answers 403. */
  status: string;
  environment: GameEnvironment;
  secret: string;
  previousSecret: string | null;
  previousSecretValidUntil: Millis | null;
  feePercent: Decimal;
  currencyId: number;
  currencyName: string;
  webhooks: WebhookEndpoint[];
  /** Settled periods sorted by (paid_at, period_id); rebuilt when dirty. */
  settledIndex: PeriodState[];
  settledDirty: boolean;
  /** Reversal entries sorted by (at, period_id); rebuilt when dirty. */
  reversalIndex: ReversalEntry[];
  reversalDirty: boolean;
};

export type PlayerState = {
  gameId: string;
  playerId: number;
  email: string;
  name: string | null;
  identityId: string | null;
  dateJoined: Millis;
  balanceCoins: Decimal;
  reservedCoins: Decimal;
  balanceUpdatedAt: Millis;
};

export type CardState = {
  cardId: number;
  gameId: string;
  playerId: number;
  lastFour: string;
  brand: string;
  expMonth: number;
  expYear: number;
  createdAt: Millis;
  /** Removed concurrently (admin): attaching it answers PAYMENT_METHOD_UNAVAILABLE. */
  removed: boolean;
};

export type SubscriptionStatus =
  | "active"
  | "past_due"
  | "awaiting_authentication"
  | "pending_pcstore_authorization"
  | "canceled"
  | "expired";

export type FundingRail = "card" | "pcstore";

export type RevenueShare = { recipientPlayerId: number; percent: Decimal; updatedAt: Millis };

export type ChargeOutcome = "decline";

export type SubscriptionState = {
  gameId: string;
  subscriptionId: string;
  playerId: number;
  clientRequestId: string;
  status: SubscriptionStatus;
  amountUsd: Decimal;
  pendingAmountUsd: Decimal | null;
  /** The price the member last agreed to: the base of the double-or-500 rule. */
  lastAgreedAmountUsd: Decimal;
  interval: Interval;
  intervalCount: number;
  anchorDay: number;
  itemId: string;
  itemName: string;
  currentPeriodStart: Millis;
  currentPeriodEnd: Millis;
  periodSeq: number;
  nextChargeAt: Millis | null;
  cancelAtPeriodEnd: boolean;
  trialEnd: Millis | null;
  canceledAt: Millis | null;
  endedAt: Millis | null;
  walletOnly: boolean;
  cardId: number | null;
  fundingRail: FundingRail;
  pcstoreAgreementStatus: "pending" | "active" | "canceled" | null;
  metadata: Record<string, unknown> | null;
  createdAt: Millis;
  updatedAt: Millis;
  revenueShare: RevenueShare | null;
  periods: PeriodState[];
  /** Forced outcomes of the next charge attempts (admin). */
  forcedOutcomes: ChargeOutcome[];
  /** Armed from the admin API: the next refund returning card money fails once the processor has issued it. */
  cardRefundFailsAfterIssue?: boolean;
  /** Token of the live schedule entry (lazy deletion in the schedule heap). */
  scheduleToken: number;
};

export type PeriodStatus = "pending" | "paid" | "failed" | "forgiven" | "refunded";

export type AttributionReason =
  | "no_revenue_share_configured"
  | "spend_order_not_found"
  | "attribution_not_recorded"
  | "attribution_malformed";

export const ATTRIBUTION_REASONS: readonly AttributionReason[] = [
  "no_revenue_share_configured",
  "spend_order_not_found",
  "attribution_not_recorded",
  "attribution_malformed",
];

export type AttributionSnapshot = {
  recipientPlayerId: number;
  percentAtRenewal: Decimal;
  baseUsd: Decimal;
  attributedUsd: Decimal;
};

export type Funding = {
  amountCoins: Decimal;
  balanceAppliedCoins: Decimal;
  cardChargedUsd: Decimal;
  rail: FundingRail;
  pcstoreChargedUsd: Decimal;
};

export type ChargeRecord = {
  attempts: number;
  paidAttemptNo: number | null;
  paidAttemptAt: Millis | null;
  outcome: "succeeded" | "retrying" | "failed" | "forgiven" | "pending";
  firstAttemptAt: Millis | null;
};

export type ReversalBasis = "clawback" | "sale_fee_row_reversed" | "none";

export type RefundEvent = {
  refundedAt: Millis;
  amountUsd: Decimal;
  cumulativeBeforeUsd: Decimal;
  cumulativeAfterUsd: Decimal;
  isFullRefund: boolean;
  transactionId: string;
  reversedAttributedUsd: Decimal;
  partnerRevenueReversedUsd: Decimal;
  reversalBasis: ReversalBasis;
  mode: "full" | "prorata";
  cardRefundedUsd: Decimal;
  /** The processor's reference of the card refund (null when no card money went back). */
  processorRefundReference: string | null;
  /** The card refund was issued by an earlier call that failed, and recorded by this one. */
  processorRefundAdopted: boolean;
  balanceDeltaCoins: Decimal;
  /** false: known only from the period row (reversal_basis period_row). */
  hasReceipt: boolean;
  clientRequestId: string | null;
  reason: string | null;
};

export type PeriodState = {
  periodId: number;
  sub: SubscriptionState;
  periodSeq: number;
  status: PeriodStatus;
  periodStart: Millis;
  periodEnd: Millis;
  paidAt: Millis | null;
  /** Price snapshot at charge. */
  amountUsd: Decimal;
  feePercent: Decimal;
  invoFeeUsd: Decimal;
  partnerRevenueSettledUsd: Decimal;
  attribution: AttributionSnapshot | null;
  unavailableReason: AttributionReason | null;
  /** What the fee rule gives for this amount at the game's fee: the reconciliation's expected base. */
  expectedBaseUsd: Decimal;
  funding: Funding | null;
  /** A card refund the processor issued for a call that then failed, not yet recorded: the next completing refund
   * records it (processor_refund_adopted) instead of refunding the card again. */
  issuedCardRefund?: { reference: string } | null;
  transactionId: string | null;
  mintOrderId: string | null;
  paymentReference: string | null;
  charge: ChargeRecord;
  passThroughFeesUsd: Decimal;
  chargebackFeesUsd: Decimal;
  disputedAmountHeldUsd: Decimal;
  refunds: RefundEvent[];
  refundedTotalUsd: Decimal;
  /** Applies a staged price change when this period is paid. */
  appliesStagedPrice: boolean;
};

/**
 * One line of the reversal index: a receipt event (`event` set), or the period-row portion of a period (`event` null:
 * its refunds known only from the period row, together, at the latest of them).
 */
export type ReversalEntry = { at: Millis; period: PeriodState; event: RefundEvent | null };

export type StoredReceipt = { body: Record<string, unknown>; lost: boolean; transactionId: string };

export type LedgerEvent = { gameId: string; type: string; data: Record<string, unknown>; at: Millis };
