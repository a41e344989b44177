import "server-only";
import type { z } from "zod";
import { createAddressGuard } from "./address-guard";
import { DEFAULT_MAX_BODY_BYTES, readBodyCapped, REPORT_MAX_BODY_BYTES } from "./body";
import { isRetryable, parseServiceError, RATE_LIMIT_PAUSE, RESPONSE_TOO_LARGE, ServiceError } from "./errors";
import {
  createPacer,
  type PaceKey,
  type Pacer,
  type PacingOptions,
  PausedTooLong,
  type RouteClass,
  realSleep,
  type Sleep,
} from "./pacing";
import { formatIssues } from "./schemas";

/** The longest a 429 pauses every caller of its buckets, whatever retry_after it names. */
const LONGEST_PAUSE_MS = 15 * 60_000;

/**
 * The service client's transport: the base address and its sandbox prefix, the game secret, per-attempt timeouts,
 * capped body reads, pacing, retries with backoff, and one log line per attempt. The endpoint functions are in
 * client.ts; this module knows no route but by its RouteClass.
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
  /** The answer's provider-neutral `error_code_public`, when it gave one apart from `errorCode`. */
  errorCodePublic?: string | null;
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
  /** Sees each answer's body as read, its text and its bytes (the snapshot stores every page's bytes as sent). */
  observeBody?: (status: number, text: string, bytes: Buffer) => void;
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

// --- Retry timing
// ------------------------------------------------------------------------------------------------------

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

// --- Requests
// ----------------------------------------------------------------------------------------------------------

export type RequestSpec<T> = {
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

export function withSchema<S extends z.ZodType>(schema: S) {
  return (_status: number, json: unknown): { ok: true; value: z.output<S> } | { ok: false; issues: string[] } => {
    const parsed = schema.safeParse(json);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: formatIssues(parsed.error) };
  };
}

export function queryString(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Player emails never reach the request log. */
export const MASKED = "[email]";
/** Nor do player ids given in a query. */
export const MASKED_PLAYER = "[player]";

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

export type Transport = ReturnType<typeof createTransport>;

export function createTransport(config: ServiceClientConfig) {
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
      const { text, bytes } = await readBodyCapped(response, bodyLimit(spec.route));
      if (observeBody) {
        try {
          observeBody(response.status, text, bytes);
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
    // The retry budget runs from the first try: a wait for the pacer before it (a pause another call's 429 set) is no
    // outage of this call's.
    let firstTry: number | null = null;
    for (let attemptNo = 1; ; attemptNo += 1) {
      const pacedMs = await admit(spec, keys, attemptNo);
      stats.attempts += 1;
      const started = now();
      firstTry ??= started;
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
        // Everyone sharing these buckets backs off for the whole wait the service asked for, not only this call: a
        // caller that waits less is refused at once, unsent (admit). A spending cap is a player's, not the buckets'.
        const pauseMs = error.retryAfterMs ?? computeRetryDelay(attemptNo, null, () => 1, backoff);
        if (error.code !== "spending_limit_exceeded") pacer.pause(keys, Math.min(pauseMs, LONGEST_PAUSE_MS));
      }
      const delayMs = computeRetryDelay(attemptNo, error.retryAfterMs, random, backoff);
      const willRetry =
        isRetryable(error, spec.idempotent) && withinRetryLimits(attemptNo, error.retryAfterMs, firstTry, delayMs);
      // Counted before the log line, so that a log sink reading stats sees this retry.
      if (willRetry) stats.retries += 1;
      writeLog({
        ...logBase(spec, attemptNo, pacedMs, durationMs),
        status,
        errorCode: error.code ?? (error.kind === "http" ? null : error.kind),
        errorCodePublic: error.codePublic,
        willRetry,
      });
      if (!willRetry) throw error.withRequest(spec.method, spec.logPath, attemptNo);
      await sleep(delayMs, spec.signal);
    }
  }

  /**
   * Waits for the pacer's room. A call that waits out no retry_after longer than maxRetryAfterMs (no retry budget)
   * waits out no longer pause either: refused at once as rate limited, nothing sent (RATE_LIMIT_PAUSE).
   */
  async function admit(spec: RequestSpec<unknown>, keys: PaceKey[], attemptNo: number): Promise<number> {
    const options = retryBudgetMs === undefined ? { maxPauseMs: maxRetryAfterMs } : undefined;
    try {
      return await pacer.acquire(keys, spec.signal, options);
    } catch (error) {
      if (!(error instanceof PausedTooLong)) throw error;
      throw new ServiceError({
        kind: "http",
        status: 429,
        code: RATE_LIMIT_PAUSE,
        retryAfterMs: error.waitMs,
        cause: error,
      }).withRequest(spec.method, spec.logPath, attemptNo);
    }
  }

  /** Count and retry_after limits, or with a budget: whether the next attempt still starts within it. */
  function withinRetryLimits(
    attemptNo: number,
    retryAfterMs: number | null,
    firstTry: number,
    delayMs: number,
  ): boolean {
    if (retryBudgetMs !== undefined) return now() - firstTry + delayMs <= retryBudgetMs;
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

  return {
    pacer,
    request,
    stats(): ServiceClientStats {
      return { ...stats };
    },
  };
}
