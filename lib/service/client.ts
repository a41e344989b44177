import "server-only";
import { z } from "zod";
import { windowInputSchema, windowToQuery } from "@/lib/time";
import {
  type AttributionReportInput,
  attributionReportInputSchema,
  type CancelSubscriptionInput,
  type ChangeAmountInput,
  type ChangePaymentMethodInput,
  cancelSubscriptionInputSchema,
  changeAmountInputSchema,
  changePaymentMethodInputSchema,
  emailInputSchema,
  type ListPlayerSubscriptionsInput,
  listPlayerSubscriptionsInputSchema,
  type PeriodReportInput,
  periodReportInputSchema,
  type RefundInput,
  refundInputSchema,
  type SubscriptionAttributionInput,
  subscriptionAttributionInputSchema,
  subscriptionIdInputSchema,
} from "./inputs";
import {
  type AttributionReport,
  attributionReportSchema,
  type CancelSubscriptionResponse,
  type ChangeAmountResponse,
  type ChangePaymentMethodResponse,
  cancelSubscriptionResponseSchema,
  changeAmountResponseSchema,
  changePaymentMethodResponseSchema,
  formatIssues,
  type GetSubscriptionResponse,
  getSubscriptionResponseSchema,
  type ListPlayerSubscriptionsResponse,
  listPlayerSubscriptionsResponseSchema,
  type PeriodReport,
  type PlayerBalance,
  type PlayerCardsResponse,
  periodReportSchema,
  playerBalanceSchema,
  playerCardsResponseSchema,
  type RefundAlreadyProcessed,
  type RefundReceipt,
  refundAlreadyProcessedSchema,
  refundReceiptSchema,
  type SubscriptionAttribution,
  subscriptionAttributionSchema,
} from "./schemas";
import {
  createTransport,
  MASKED,
  MASKED_PLAYER,
  queryString,
  type ServiceClientConfig,
  type ServiceClientStats,
  withSchema,
} from "./transport";

export * from "./inputs";
export {
  computeRetryDelay,
  type FetchLike,
  type RequestLogEntry,
  type ServiceClientConfig,
  type ServiceClientStats,
  type ServiceEnvironment,
} from "./transport";

/**
 * The typed client for the service's API: one function per route Payout Desk uses, each validating its input, pacing
 * itself, sending the game secret, and parsing the answer with its schema.
 *
 * Retry policy: reads, and the refund (it carries client_request_id: "Retrying after a 5xx with the same key is
 * safe"), are retried on network errors, timeouts, 429 (after retry_after) and 5xx, with exponential backoff and full
 * jitter, except where the code says retrying is wrong (REFUND_LOOKUP_FAILED, REFUND_MISMATCH: manual attention).
 * Cancel, price change and payment-method change carry no idempotency key, so they are sent once: after a timeout or
 * a 5xx nobody knows whether the change was applied, and the caller must re-read the subscription before acting again.
 */

/**
 * For a page that reads from the service while a person waits for it: a service that does not answer is said so
 * within about 20 s (two attempts of 10 s), not after the two and a half minutes the defaults allow a background read,
 * and a retry_after longer than 5 s is not waited out (the page says to try again in a minute).
 */
export const PAGE_READ_CLIENT: Partial<ServiceClientConfig> = {
  timeoutMs: 10_000,
  maxRetries: 1,
  maxRetryAfterMs: 5_000,
};

export type CallOptions = { signal?: AbortSignal };

export type RefundResult =
  | { outcome: "refunded"; receipt: RefundReceipt }
  /** The refund was made earlier under this client_request_id and its receipt was lost; only the ids remain. */
  | { outcome: "already_processed"; replay: RefundAlreadyProcessed };

export type ServiceClient = ReturnType<typeof createServiceClient>;

export function createServiceClient(config: ServiceClientConfig) {
  const transport = createTransport(config);
  const { request } = transport;
  const seg = encodeURIComponent;

  return {
    environment: config.environment,
    gameId: config.gameId,
    pacer: transport.pacer,
    stats(): ServiceClientStats {
      return transport.stats();
    },

    /** GET /api/subscriptions/{id} */
    async getSubscription(
      subscriptionId: string,
      input: { includePlayer?: boolean } = {},
      options: CallOptions = {},
    ): Promise<GetSubscriptionResponse> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const query = queryString({ include_player: input.includePlayer ? "true" : undefined });
      const path = `/api/subscriptions/${seg(id)}${query}`;
      return request({
        method: "GET",
        route: "subscription_read",
        path,
        logPath: path,
        idempotent: true,
        parse: withSchema(getSubscriptionResponseSchema),
        signal: options.signal,
      });
    },

    /** GET /api/subscriptions/player: newest first; an unknown player is an empty list. */
    async listPlayerSubscriptions(
      input: ListPlayerSubscriptionsInput,
      options: CallOptions = {},
    ): Promise<ListPlayerSubscriptionsResponse> {
      const value = listPlayerSubscriptionsInputSchema.parse(input);
      const params = {
        status: value.status?.length ? value.status.join(",") : undefined,
        include_player: value.includePlayer ? "true" : undefined,
        limit: value.limit,
        offset: value.offset,
      };
      return request({
        method: "GET",
        route: "subscription_read",
        path: `/api/subscriptions/player${queryString({ player_email: value.playerEmail, ...params })}`,
        logPath: `/api/subscriptions/player${queryString({ player_email: MASKED, ...params })}`,
        idempotent: true,
        parse: withSchema(listPlayerSubscriptionsResponseSchema),
        signal: options.signal,
      });
    },

    /** POST /api/subscriptions/{id}/cancel. Sent once: not retried (no idempotency key). */
    async cancelSubscription(
      subscriptionId: string,
      input: CancelSubscriptionInput = {},
      options: CallOptions = {},
    ): Promise<CancelSubscriptionResponse> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const value = cancelSubscriptionInputSchema.parse(input);
      const body: Record<string, unknown> = {};
      if (value.atPeriodEnd !== undefined) body.at_period_end = value.atPeriodEnd;
      if (value.reason !== undefined) body.reason = value.reason;
      const path = `/api/subscriptions/${seg(id)}/cancel`;
      return request({
        method: "POST",
        route: "subscription_change",
        path,
        logPath: path,
        body,
        subscriptionId: id,
        idempotent: false,
        parse: withSchema(cancelSubscriptionResponseSchema),
        signal: options.signal,
      });
    },

    /** POST /api/subscriptions/{id}/amount: staged to the next renewal. Sent once. */
    async changeSubscriptionAmount(
      subscriptionId: string,
      input: ChangeAmountInput,
      options: CallOptions = {},
    ): Promise<ChangeAmountResponse> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const value = changeAmountInputSchema.parse(input);
      const path = `/api/subscriptions/${seg(id)}/amount`;
      return request({
        method: "POST",
        route: "subscription_change",
        path,
        logPath: path,
        body: { amount_usd: value.amountUsd },
        subscriptionId: id,
        idempotent: false,
        parse: withSchema(changeAmountResponseSchema),
        signal: options.signal,
      });
    },

    /** POST /api/subscriptions/{id}/payment-method (card subscriptions only). Sent once. */
    async changePaymentMethod(
      subscriptionId: string,
      input: ChangePaymentMethodInput,
      options: CallOptions = {},
    ): Promise<ChangePaymentMethodResponse> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const value = changePaymentMethodInputSchema.parse(input);
      const body: Record<string, unknown> = {};
      if (value.playerCardId !== undefined) body.player_card_id = value.playerCardId;
      if (value.walletOnly !== undefined) body.wallet_only = value.walletOnly;
      const path = `/api/subscriptions/${seg(id)}/payment-method`;
      return request({
        method: "POST",
        route: "subscription_change",
        path,
        logPath: path,
        body,
        subscriptionId: id,
        idempotent: false,
        parse: withSchema(changePaymentMethodResponseSchema),
        signal: options.signal,
      });
    },

    /**
     * POST /api/subscriptions/{id}/refund. Retried with the same client_request_id, which the caller must have stored
     * with the attempt before calling. REFUND_LOOKUP_FAILED / REFUND_MISMATCH are thrown at once (manual attention).
     */
    async refundSubscription(
      subscriptionId: string,
      input: RefundInput,
      options: CallOptions = {},
    ): Promise<RefundResult> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const value = refundInputSchema.parse(input);
      const body: Record<string, unknown> = { client_request_id: value.clientRequestId };
      if (value.periodSeq !== undefined) body.period_seq = value.periodSeq;
      if (value.amountUsd !== undefined) body.amount_usd = value.amountUsd;
      if (value.reason !== undefined) body.reason = value.reason;
      const path = `/api/subscriptions/${seg(id)}/refund`;
      return request<RefundResult>({
        method: "POST",
        route: "refund",
        path,
        logPath: path,
        body,
        subscriptionId: id,
        idempotent: true,
        parse: (_status, json) => {
          const receipt = refundReceiptSchema.safeParse(json);
          if (receipt.success) return { ok: true, value: { outcome: "refunded", receipt: receipt.data } };
          const replay = readAlreadyProcessed(json);
          if (replay) return { ok: true, value: { outcome: "already_processed", replay } };
          return { ok: false, issues: formatIssues(receipt.error) };
        },
        acceptError: (error) => {
          // "a repeat returns 409 carrying the original transaction_id": a replay, unless the 409 is a refusal.
          if (error.status !== 409 || (error.code !== null && REFUND_CONFLICT_CODES.has(error.code))) return undefined;
          const receipt = refundReceiptSchema.safeParse(error.body);
          if (receipt.success) return { outcome: "refunded", receipt: receipt.data };
          const replay = readAlreadyProcessed(error.body);
          return replay ? { outcome: "already_processed", replay } : undefined;
        },
        signal: options.signal,
      });
    },

    /** GET /api/subscriptions/reporting/attribution: one page of recipients; totals are never paginated. */
    async getAttributionReport(input: AttributionReportInput, options: CallOptions = {}): Promise<AttributionReport> {
      const value = attributionReportInputSchema.parse(input);
      const window = windowInputSchema.parse({ start: value.start, end: value.end });
      const query = (recipient: number | string | undefined) =>
        queryString({
          ...windowToQuery(window),
          recipient_player_id: recipient,
          subscription_id: value.subscriptionId,
          limit: value.limit,
          offset: value.offset,
        });
      const path = `/api/subscriptions/reporting/attribution${query(value.recipientPlayerId)}`;
      // A request's log line names no player (RequestLogEntry): the recipient read alone is masked.
      const masked = value.recipientPlayerId === undefined ? undefined : MASKED_PLAYER;
      return request({
        method: "GET",
        route: "reporting_aggregate",
        path,
        logPath: `/api/subscriptions/reporting/attribution${query(masked)}`,
        idempotent: true,
        parse: withSchema(attributionReportSchema),
        signal: options.signal,
      });
    },

    /** GET /api/subscriptions/reporting/subscriptions/{id}/attribution: cycles newest first. */
    async getSubscriptionAttribution(
      subscriptionId: string,
      input: SubscriptionAttributionInput = {},
      options: CallOptions = {},
    ): Promise<SubscriptionAttribution> {
      const id = subscriptionIdInputSchema.parse(subscriptionId);
      const value = subscriptionAttributionInputSchema.parse(input);
      const path = `/api/subscriptions/reporting/subscriptions/${seg(id)}/attribution${queryString({
        status: value.status?.length ? value.status.join(",") : undefined,
        limit: value.limit,
        offset: value.offset,
      })}`;
      return request({
        method: "GET",
        route: "reporting_detail",
        path,
        logPath: path,
        subscriptionId: id,
        idempotent: true,
        parse: withSchema(subscriptionAttributionSchema),
        signal: options.signal,
      });
    },

    /** GET /api/subscriptions/reporting/periods/{period_id} */
    async getPeriodReport(
      periodId: number,
      input: PeriodReportInput = {},
      options: CallOptions = {},
    ): Promise<PeriodReport> {
      const id = z.number().int().positive().parse(periodId);
      const value = periodReportInputSchema.parse(input);
      const path = `/api/subscriptions/reporting/periods/${id}`;
      return request({
        method: "GET",
        route: "reporting_detail",
        path,
        logPath: path,
        subscriptionId: value.subscriptionId,
        idempotent: true,
        parse: withSchema(periodReportSchema),
        signal: options.signal,
      });
    },

    /** GET /api/player-balances/player/by-email/{email}: a player never seen answers 404 (thrown). */
    async getPlayerBalanceByEmail(playerEmail: string, options: CallOptions = {}): Promise<PlayerBalance> {
      const email = emailInputSchema.parse(playerEmail);
      return request({
        method: "GET",
        route: "balance_read",
        path: `/api/player-balances/player/by-email/${seg(email)}`,
        logPath: `/api/player-balances/player/by-email/${MASKED}`,
        idempotent: true,
        parse: withSchema(playerBalanceSchema),
        signal: options.signal,
      });
    },

    /** GET /api/currency-purchases/player-cards: newest first, expired cards filtered out, never 404. */
    async listPlayerCards(playerEmail: string, options: CallOptions = {}): Promise<PlayerCardsResponse> {
      const email = emailInputSchema.parse(playerEmail);
      return request({
        method: "GET",
        route: "card_read",
        path: `/api/currency-purchases/player-cards${queryString({ player_email: email })}`,
        logPath: `/api/currency-purchases/player-cards${queryString({ player_email: MASKED })}`,
        idempotent: true,
        parse: withSchema(playerCardsResponseSchema),
        signal: options.signal,
      });
    },
  };
}

/** 409 refusals of the refund route (refund errors table); any other 409 with a transaction_id is a replay. */
const REFUND_CONFLICT_CODES: ReadonlySet<string> = new Set([
  "NO_PAID_PERIOD",
  "PERIOD_NOT_REFUNDABLE",
  "ALREADY_REFUNDED",
  "PCSTORE_REFUND_NOT_SUPPORTED",
  "MINT_ORDER_MISSING",
  "NO_PAYMENT_REFERENCE",
]);

function readAlreadyProcessed(json: unknown): RefundAlreadyProcessed | null {
  // A body that tries to be a receipt and fails is a schema mismatch, not the reduced replay.
  if (json !== null && typeof json === "object" && ("refund_key" in json || "refunded_amount_usd" in json)) return null;
  const parsed = refundAlreadyProcessedSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
