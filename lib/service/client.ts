import "server-only";
import { z } from "zod";
import { usdInputSchema } from "@/lib/money";
import { formatInstant, windowInputSchema } from "@/lib/time";
import { createAddressGuard } from "./address-guard";
import { DEFAULT_MAX_BODY_BYTES, readBodyCapped, REPORT_MAX_BODY_BYTES } from "./body";
import { RESPONSE_TOO_LARGE, ServiceError, isRetryable, parseServiceError } from "./errors";
import { createPacer, realSleep, type Pacer, type PacingOptions, type RouteClass, type Sleep } from "./pacing";
import {
  PERIOD_STATUSES,
  attributionReportSchema,
  cancelSubscriptionResponseSchema,
  changeAmountResponseSchema,
  changePaymentMethodResponseSchema,
  formatIssues,
  getSubscriptionResponseSchema,
  listPlayerSubscriptionsResponseSchema,
  periodReportSchema,
  playerBalanceSchema,
  playerCardsResponseSchema,
  refundAlreadyProcessedSchema,
  refundReceiptSchema,
  subscriptionAttributionSchema,
  type AttributionReport,
  type CancelSubscriptionResponse,
  type ChangeAmountResponse,
  type ChangePaymentMethodResponse,
  type GetSubscriptionResponse,
  type ListPlayerSubscriptionsResponse,
  type PeriodReport,
  type PlayerBalance,
  type PlayerCardsResponse,
  type RefundAlreadyProcessed,
  type RefundReceipt,
  type SubscriptionAttribution,
} from "./schemas";

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

export type ServiceEnvironment = "sandbox" | "production";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** One line per attempt. Never the secret, a request body, an email, or a query value that identifies a player. */
export type RequestLogEntry = {
  method: "GET" | "POST";
  path: string;
  route: RouteClass;
  status: number | null;
  durationMs: number;
  errorCode: string | null;
  attempt: number;
  /** Time spent waiting for the pacer before this attempt. */
  pacedMs: number;
  /** Whether the client will send the request again after this attempt. */
  willRetry: boolean;
};

export type ServiceClientConfig = {
  /** The service's base address, without the /sandbox prefix (added for the sandbox environment). */
  baseUrl: string;
  environment: ServiceEnvironment;
  gameSecret: string;
  /** Key for the pacer's per-game buckets. */
  gameId: string;
  /** Per attempt, from sending the request to reading the whole body. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt, for requests that may be retried. Default 4. */
  maxRetries?: number;
  /** First backoff step and its ceiling. Defaults 250 ms and 15 s. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A retry_after longer than this is not waited out in-call; the error is thrown with retryAfterMs. Default 60 s. */
  maxRetryAfterMs?: number;
  /**
   * Rides out an outage: when set, a call that may be retried is retried for as long as this much time has not passed
   * since its first attempt (the next wait included), whatever maxRetries and maxRetryAfterMs say; a retry_after that
   * fits is waited out in full. A long pull sets it; interactive calls keep the count.
   */
  retryBudgetMs?: number;
  /**
   * The most of one answer's body the client reads; past it the read is aborted (RESPONSE_TOO_LARGE). Default 4 MB, and
   * 64 MB for the aggregate report (lib/service/body.ts).
   */
  maxBodyBytes?: number;
  /** Sees each answer's body as read (the snapshot keeps the text of every page as sent). */
  observeBody?: (status: number, text: string) => void;
  /**
   * The addresses a host name resolves to, checked before a production game's first request (link-local and metadata
   * addresses are refused). Default: the system resolver.
   */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** Share one Pacer between clients of the same game (a job and the support tools) to share the limits. */
  pacing?: Pacer | PacingOptions | "off";
  fetch?: FetchLike;
  log?: (entry: RequestLogEntry) => void;
  /** In [0, 1); jitter. */
  random?: () => number;
  sleep?: Sleep;
  /** Wall clock in epoch ms (durations, absolute retry_after timestamps). */
  now?: () => number;
};

export type ServiceClientStats = {
  /** Calls made through the typed functions. */
  requests: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  retries: number;
  /** 429 responses received. */
  rateLimited: number;
  timeouts: number;
  networkErrors: number;
};

export type CallOptions = { signal?: AbortSignal };

export type RefundResult =
  | { outcome: "refunded"; receipt: RefundReceipt }
  /** The refund was made earlier under this client_request_id and its receipt was lost; only the ids remain. */
  | { outcome: "already_processed"; replay: RefundAlreadyProcessed };

// --- Inputs ----------------------------------------------------------------------------------------------------------

/** Path-safe and within the reporting route's "At most 50 characters"; the service checks the SUB_ form itself. */
export const subscriptionIdInputSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,50}$/, { message: "must be a subscription id such as SUB_1767225600_AB12CD34" });

const emailInputSchema = z
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

export const cancelSubscriptionInputSchema = z.object({
  /** Default true at the service. */
  atPeriodEnd: z.boolean().optional(),
  /** "Cancel and refund reason: at most 500 characters" */
  reason: z.string().max(500).optional(),
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
  reason: z.string().max(500).optional(),
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

// --- Retry timing ------------------------------------------------------------------------------------------------------

/**
 * Wait before retry number `retry` (1 = the first retry). Full jitter: uniform in [0, min(max, base * 2^(retry-1))).
 * A retry_after is honoured in full, plus up to one base step of jitter so that refused callers do not return at once.
 */
export function computeRetryDelay(
  retry: number,
  retryAfterMs: number | null,
  random: () => number,
  backoff: { baseMs: number; maxMs: number },
): number {
  const r = Math.min(Math.max(random(), 0), 1);
  if (retryAfterMs !== null) return retryAfterMs + Math.floor(r * backoff.baseMs);
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(r * ceiling);
}

// --- Client ------------------------------------------------------------------------------------------------------------

type RequestSpec<T> = {
  method: "GET" | "POST";
  route: RouteClass;
  /** Encoded path after the environment prefix, with its query string. */
  path: string;
  /** The same path as it may be logged. */
  logPath: string;
  body?: Record<string, unknown>;
  subscriptionId?: string;
  idempotent: boolean;
  parse: (status: number, json: unknown) => { ok: true; value: T } | { ok: false; issues: string[] };
  /** Turns some error answers into results (the refund's "already processed" replay). */
  acceptError?: (error: ServiceError) => T | undefined;
  signal?: AbortSignal;
};

class TimeoutSignal extends Error {}

function withSchema<S extends z.ZodType>(schema: S) {
  return (_status: number, json: unknown): { ok: true; value: z.output<S> } | { ok: false; issues: string[] } => {
    const parsed = schema.safeParse(json);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: formatIssues(parsed.error) };
  };
}

function queryString(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Player emails never reach the request log. */
const MASKED = "[email]";

function resolvePacer(pacing: ServiceClientConfig["pacing"]): Pacer {
  if (pacing === undefined) return createPacer();
  if (pacing === "off") return createPacer({ mode: "off" });
  if (typeof (pacing as Pacer).acquire === "function") return pacing as Pacer;
  return createPacer(pacing as PacingOptions);
}

/** The system code of a failed fetch; undici nests it in `cause`, sometimes inside an AggregateError. */
function networkCode(error: unknown): string | null {
  type Coded = { code?: unknown; cause?: Coded; errors?: Coded[] } | null | undefined;
  const seen = error as Coded;
  const candidates = [seen?.cause?.code, seen?.cause?.errors?.[0]?.code, seen?.code];
  const code = candidates.find((value) => typeof value === "string");
  return typeof code === "string" && /^[A-Z0-9_]+$/.test(code) ? code : null;
}

export type ServiceClient = ReturnType<typeof createServiceClient>;

export function createServiceClient(config: ServiceClientConfig) {
  const base = new URL(config.baseUrl);
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new Error("service baseUrl must be http(s)");
  if (base.search || base.hash) throw new Error("service baseUrl must not carry a query or fragment");
  if (!config.gameSecret) throw new Error("service client needs a game secret");
  const rootPath = base.pathname.replace(/\/+$/, "");
  // "the sandbox has its own base address whose path carries the prefix /sandbox, everything after it being identical"
  const prefix = config.environment === "sandbox" && !rootPath.endsWith("/sandbox") ? `${rootPath}/sandbox` : rootPath;
  const origin = base.origin;

  const gameSecret = config.gameSecret;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const maxRetries = config.maxRetries ?? 4;
  const backoff = { baseMs: config.backoffBaseMs ?? 250, maxMs: config.backoffMaxMs ?? 15_000 };
  const maxRetryAfterMs = config.maxRetryAfterMs ?? 60_000;
  const retryBudgetMs = config.retryBudgetMs;
  const bodyLimit = (route: RouteClass) =>
    config.maxBodyBytes ?? (route === "reporting_aggregate" ? REPORT_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES);
  const observeBody = config.observeBody;
  // A production game's base URL never points at a link-local or metadata address (its secret would go there).
  const addressGuard = createAddressGuard(base.hostname, config.environment === "production", config.resolveHost);
  const pacer = resolvePacer(config.pacing);
  const doFetch: FetchLike = config.fetch ?? ((url, init) => fetch(url, init));
  const random = config.random ?? Math.random;
  const sleep = config.sleep ?? realSleep;
  const now = config.now ?? Date.now;
  const log = config.log;
  const stats: ServiceClientStats = {
    requests: 0,
    attempts: 0,
    retries: 0,
    rateLimited: 0,
    timeouts: 0,
    networkErrors: 0,
  };

  function writeLog(entry: RequestLogEntry): void {
    try {
      log?.(entry);
    } catch {
      // A broken log sink must not fail a refund.
    }
  }

  async function attempt(spec: RequestSpec<unknown>): Promise<{ status: number; headers: Headers; text: string }> {
    spec.signal?.throwIfAborted();
    await addressGuard.check();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), timeoutMs);
    const onCallerAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener("abort", onCallerAbort, { once: true });
    try {
      const headers: Record<string, string> = {
        Accept: "application/json",
        "X-Game-Secret-Key": gameSecret,
      };
      if (spec.body !== undefined) headers["Content-Type"] = "application/json";
      const response = await doFetch(`${origin}${prefix}${spec.path}`, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: controller.signal,
        redirect: "error",
      });
      const text = await readBodyCapped(response, bodyLimit(spec.route));
      if (observeBody) {
        try {
          observeBody(response.status, text);
        } catch {
          // An observer's failure is not the service's.
        }
      }
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof ServiceError && error.code === RESPONSE_TOO_LARGE) controller.abort();
      if (spec.signal?.aborted) throw spec.signal.reason ?? error;
      if (error instanceof ServiceError) throw error;
      if (controller.signal.reason instanceof TimeoutSignal) {
        throw new ServiceError({ kind: "timeout", cause: undefined });
      }
      throw new ServiceError({ kind: "network", code: networkCode(error), cause: error });
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  function interpret<T>(
    spec: RequestSpec<T>,
    status: number,
    headers: Headers,
    text: string,
  ): { ok: true; value: T } | { ok: false; error: ServiceError } {
    if (status >= 200 && status < 300) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // Cut short or not JSON at all: the same request may well succeed.
        return {
          ok: false,
          error: new ServiceError({ kind: "invalid_response", status, issues: ["(body): not JSON"], transient: true }),
        };
      }
      const parsed = spec.parse(status, json);
      if (parsed.ok) return parsed;
      return { ok: false, error: new ServiceError({ kind: "invalid_response", status, issues: parsed.issues }) };
    }
    const error = parseServiceError(status, headers, text, now());
    const accepted = spec.acceptError?.(error);
    if (accepted !== undefined) return { ok: true, value: accepted };
    return { ok: false, error };
  }

  async function request<T>(spec: RequestSpec<T>): Promise<T> {
    stats.requests += 1;
    const keys = pacer.keysFor(spec.route, { gameId: config.gameId, subscriptionId: spec.subscriptionId });
    const callStarted = now();
    for (let attemptNo = 1; ; attemptNo += 1) {
      const pacedMs = await pacer.acquire(keys, spec.signal);
      stats.attempts += 1;
      const started = now();
      let result: { ok: true; value: T } | { ok: false; error: ServiceError };
      let status: number | null = null;
      try {
        const response = await attempt(spec as RequestSpec<unknown>);
        status = response.status;
        result = interpret(spec, response.status, response.headers, response.text);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        result = { ok: false, error };
      }
      const durationMs = Math.max(0, now() - started);
      if (result.ok) {
        writeLog({ ...logBase(spec, attemptNo, pacedMs, durationMs), status, errorCode: null, willRetry: false });
        return result.value;
      }
      const error = result.error;
      if (error.kind === "timeout") stats.timeouts += 1;
      if (error.kind === "network") stats.networkErrors += 1;
      if (error.status === 429) {
        stats.rateLimited += 1;
        // Everyone sharing these buckets backs off, not only this call; capped so that one long retry_after cannot
        // hold a support page for minutes (a later call then meets the 429 itself and fails fast).
        const pauseMs = error.retryAfterMs ?? computeRetryDelay(attemptNo, null, () => 1, backoff);
        pacer.pause(keys, Math.min(pauseMs, maxRetryAfterMs));
      }
      const delayMs = computeRetryDelay(attemptNo, error.retryAfterMs, random, backoff);
      const willRetry =
        isRetryable(error, spec.idempotent) && withinRetryLimits(attemptNo, error.retryAfterMs, callStarted, delayMs);
      // Counted before the log line, so that a log sink reading stats sees this retry.
      if (willRetry) stats.retries += 1;
      writeLog({
        ...logBase(spec, attemptNo, pacedMs, durationMs),
        status,
        errorCode: error.code ?? (error.kind === "http" ? null : error.kind),
        willRetry,
      });
      if (!willRetry) throw error.withRequest(spec.method, spec.logPath, attemptNo);
      await sleep(delayMs, spec.signal);
    }
  }

  /** Count and retry_after limits, or with a budget: whether the next attempt still starts within it. */
  function withinRetryLimits(
    attemptNo: number,
    retryAfterMs: number | null,
    callStarted: number,
    delayMs: number,
  ): boolean {
    if (retryBudgetMs !== undefined) return now() - callStarted + delayMs <= retryBudgetMs;
    const tooLong = retryAfterMs !== null && retryAfterMs > maxRetryAfterMs;
    return attemptNo <= maxRetries && !tooLong;
  }

  function logBase(spec: RequestSpec<unknown>, attemptNo: number, pacedMs: number, durationMs: number) {
    return {
      method: spec.method,
      path: `${prefix}${spec.logPath}`,
      route: spec.route,
      durationMs,
      attempt: attemptNo,
      pacedMs: Math.round(pacedMs),
    };
  }

  const seg = encodeURIComponent;

  return {
    environment: config.environment,
    gameId: config.gameId,
    pacer,
    stats(): ServiceClientStats {
      return { ...stats };
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
      const path = `/api/subscriptions/reporting/attribution${queryString({
        start: formatInstant(window.startMs),
        end: formatInstant(window.endMs),
        recipient_player_id: value.recipientPlayerId,
        subscription_id: value.subscriptionId,
        limit: value.limit,
        offset: value.offset,
      })}`;
      return request({
        method: "GET",
        route: "reporting_aggregate",
        path,
        logPath: path,
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
