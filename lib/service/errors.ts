import "server-only";

/**
 * One error type for everything that can go wrong calling the service. Messages carry the HTTP status, the machine
 * code and the error_id (what support quotes to the service), never the game secret, a request body, a query string or
 * the service's human text (kept apart in `serviceMessage`, which may name a player).
 */
export type ServiceErrorKind = "http" | "network" | "timeout" | "invalid_response";

/** invalid_response: the answer was larger than the client reads (a hostile or broken endpoint). */
export const RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE";
/** network: nothing was sent, the base URL leads to a link-local or cloud metadata address. */
export const ADDRESS_REFUSED = "ADDRESS_REFUSED";
/** http 429: nothing was sent, an earlier 429's retry_after pauses this game's calls longer than the caller waits. */
export const RATE_LIMIT_PAUSE = "RATE_LIMIT_PAUSE";

export type ServiceErrorInit = {
  kind: ServiceErrorKind;
  status?: number | null;
  code?: string | null;
  codePublic?: string | null;
  errorId?: string | null;
  retryAfterMs?: number | null;
  body?: Record<string, unknown> | null;
  serviceMessage?: string | null;
  issues?: readonly string[];
  /** invalid_response only: the body was unreadable (cut short), so the same request may succeed. */
  transient?: boolean;
  /** RESPONSE_TOO_LARGE only: the most the client reads of one answer, in bytes. */
  limitBytes?: number;
  /** ADDRESS_REFUSED only: the host and the address it was refused for. */
  host?: string;
  address?: string;
  method?: string;
  path?: string;
  cause?: unknown;
};

/**
 * System codes of a connection that was never made (refused, no such host, no route to it), and the client's own
 * refusal of an address: nothing of the request left this machine. A reset, a broken pipe or a timeout may come after
 * the request went out.
 */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  ADDRESS_REFUSED,
]);

/** Whether a failed call certainly sent nothing to the service: its connection was never made. */
export function neverConnected(failure: { kind: string; code?: string | null }): boolean {
  return failure.kind === "network" && failure.code != null && NEVER_CONNECTED.has(failure.code);
}

export class ServiceError extends Error {
  readonly kind: ServiceErrorKind;
  /** HTTP status; null when no response arrived (network, timeout). */
  readonly status: number | null;
  /**
   * Machine code: body `code`, then `error_code`, then `error` when it is a code, then a bare `status` code. For a
   * network error, the system code when there is one (ECONNRESET, ECONNREFUSED).
   */
  readonly code: string | null;
  /** Provider-neutral `error_code_public` ("matching on error_code_public is preferred for new code"). */
  readonly codePublic: string | null;
  readonly errorId: string | null;
  /** How long the service asked us to wait, in milliseconds from when the response was read. */
  readonly retryAfterMs: number | null;
  /** The parsed JSON body of an error response (remaining_refundable_usd, settled_renewals, ...). */
  readonly body: Record<string, unknown> | null;
  /** The service's human text (`error` or `message`) when it was not a code. */
  readonly serviceMessage: string | null;
  /** For invalid_response: the zod issue paths and codes, never the values. */
  readonly issues: readonly string[];
  readonly transient: boolean;
  readonly limitBytes: number | undefined;
  readonly host: string | undefined;
  readonly address: string | undefined;
  /** Set by the client: the method and the log-safe path of the request that failed. */
  method: string | null;
  path: string | null;
  /** Set by the client: how many attempts were made before giving up. */
  attempts = 1;

  constructor(init: ServiceErrorInit) {
    super(messageOf(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ServiceError";
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.codePublic = init.codePublic ?? null;
    this.errorId = init.errorId ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.body = init.body ?? null;
    this.serviceMessage = init.serviceMessage ?? null;
    this.issues = init.issues ?? [];
    this.transient = init.transient ?? false;
    this.limitBytes = init.limitBytes;
    this.host = init.host;
    this.address = init.address;
    this.method = init.method ?? null;
    this.path = init.path ?? null;
  }

  /** Attaches the request (log-safe path) and refreshes the message to name it. */
  withRequest(method: string, path: string, attempts: number): this {
    this.method = method;
    this.path = path;
    this.attempts = attempts;
    this.message = messageOf({ ...this, method, path, issues: this.issues });
    return this;
  }
}

function messageOf(init: {
  kind: ServiceErrorKind;
  status?: number | null;
  retryAfterMs?: number | null;
  code?: string | null;
  codePublic?: string | null;
  errorId?: string | null;
  issues?: readonly string[];
  method?: string | null;
  path?: string | null;
  limitBytes?: number;
  host?: string;
  address?: string;
}): string {
  const where = init.method && init.path ? `${init.method} ${init.path}: ` : "";
  if (init.code === RESPONSE_TOO_LARGE) {
    return (
      `${where}the service's answer is larger than the ${formatBytes(init.limitBytes)} the client reads; it was ` +
      `cut off`
    );
  }
  if (init.code === ADDRESS_REFUSED) {
    const address = init.address && init.address !== init.host ? ` (${init.address})` : "";
    return (
      `${where}refused to call ${init.host ?? "the service"}${address}: a link-local or cloud metadata address ` +
      `is never the service`
    );
  }
  if (init.code === RATE_LIMIT_PAUSE) {
    const seconds = Math.ceil((init.retryAfterMs ?? 0) / 1000);
    return `${where}not sent: an earlier 429 paused this game's calls for ${seconds} s more`;
  }
  switch (init.kind) {
    case "network":
      return `${where}network error${init.code ? ` (${init.code})` : ""}`;
    case "timeout":
      return `${where}timed out waiting for the service`;
    case "invalid_response": {
      const issues = init.issues?.length ? `: ${init.issues.slice(0, 5).join("; ")}` : "";
      return `${where}unexpected response from the service (HTTP ${init.status ?? "?"})${issues}`;
    }
    case "http": {
      const codes = [init.code, init.codePublic && init.codePublic !== init.code ? init.codePublic : null]
        .filter(Boolean)
        .join(" / ");
      const ref = init.errorId ? ` [error_id ${init.errorId}]` : "";
      return `${where}service answered ${init.status ?? "?"}${codes ? ` ${codes}` : ""}${ref}`;
    }
  }
}

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return "limit";
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${bytes} bytes`;
}

/**
 * A failed call as a person reads it: what happened and what to do, in words, then the status, codes and the
 * service's error id in brackets, for a report to the service. Never the request's path (logs have it).
 */
export function describeServiceFailure(error: ServiceError): string {
  return `${reasonOf(error, codesOf(error))}${serviceFailureReference(error)}`;
}

/** What identifies a failure to the service's support, " (HTTP 429, RATE_LIMITED, service error id …)", or "". */
export function serviceFailureReference(error: ServiceError): string {
  const codes = codesOf(error);
  const detail = [
    error.status === null ? null : `HTTP ${error.status}`,
    codes.length > 0 ? codes.join(" / ") : null,
    error.errorId ? `service error id ${error.errorId}` : null,
  ].filter(Boolean);
  return detail.length > 0 ? ` (${detail.join(", ")})` : "";
}

function codesOf(error: ServiceError): string[] {
  return [error.code, error.codePublic].filter((c, i, all): c is string => Boolean(c) && all.indexOf(c) === i);
}

/** What a person does when the service could not be reached at all. */
export const UNREACHABLE_ADVICE = "Try again in a minute; if it persists, an admin checks the game's base URL.";

function reasonOf(error: ServiceError, codes: readonly string[]): string {
  const status = error.status ?? 0;
  if (error.kind === "network") return `the service could not be reached. ${UNREACHABLE_ADVICE}`;
  if (error.kind === "timeout") return "the service did not answer in time. Try again in a minute.";
  if (error.kind === "invalid_response")
    return "the service answered in a form Payout Desk could not read. Try again; if it persists, tell an admin.";
  if (status === 401 || codes.includes("INVALID_GAME_SECRET"))
    return "the service rejected this game's secret. An admin must update it under Settings → Games.";
  if (status === 403) return "the service refused this game access (it may be suspended). Tell an admin.";
  if (status === 429) return "the service is rate limiting this game. Try again in a minute.";
  if (status === 503) return "the service is unavailable or paused for maintenance. Try again later.";
  if (status >= 500) return "the service failed to answer. Try again in a minute.";
  return "the service refused the request.";
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

/** A header bag: a fetch `Headers`, or a plain object as tests write it. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined>;

function headerValue(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name);
  }
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | undefined>)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return null;
}

// snake_case with at least one underscore (spending_limit_exceeded) or an UPPER_CASE word (FLOW_PAUSED, FORBIDDEN):
// `error` holds human text in the standard envelope and a code in some refusals.
const CODE_LIKE = /^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)$/;
// `status` is a code only in the refusals that carry nothing else ({status: "service_unavailable"}).
const GENERIC_STATUS = new Set(["error", "failed", "failure", "success", "ok", "pending", "refunded"]);

function asCode(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  return text.length > 0 && text.length <= 100 && CODE_LIKE.test(text) ? text : null;
}

/**
 * A reference to quote in a report (`error_id`: "err_7f3a", a number, a uuid): shown on pages, logged and kept with a
 * refund, so anything else (text the service put there) is dropped, never passed on.
 */
function asReference(value: unknown): string | null {
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  return typeof text === "string" && /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/.test(text) ? text : null;
}

function asText(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * Reads a wait from `retry_after` (body) or `Retry-After` (header): seconds, or an absolute time (an ISO timestamp, an
 * HTTP-date, or epoch seconds/milliseconds), returned as milliseconds from `nowMs`, never negative.
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | null {
  if (typeof value === "number") return fromNumber(value, nowMs);
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "") return null;
  if (/^\d+(\.\d+)?$/.test(text)) return fromNumber(Number(text), nowMs);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

function fromNumber(value: number, nowMs: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null;
  // A relative wait is seconds and small; anything past 2001-09-09 in epoch seconds is an absolute time.
  if (value >= 1e12) return Math.max(0, Math.round(value - nowMs));
  if (value >= 1e9) return Math.max(0, Math.round(value * 1000 - nowMs));
  return Math.round(value * 1000);
}

function parseBody(bodyText: string): Record<string, unknown> | null {
  if (bodyText.trim() === "") return null;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Turns a non-2xx response into a ServiceError. Pure: the caller passes the clock.
 *
 * "Error envelope: {error: human text, error_code: machine code, error_id, timestamp}. Some responses also carry
 * error_code_public. Some refusals carry only status or error." The code is read from `code`, then `error_code`, then
 * `error` (when it looks like a code, e.g. `spending_limit_exceeded`), then a bare `status` such as
 * `service_unavailable` ("503 body {status: service_unavailable}, no error codes").
 */
export function parseServiceError(
  status: number,
  headers: HeaderSource,
  bodyText: string,
  nowMs: number,
): ServiceError {
  const body = parseBody(bodyText);
  const nested =
    body && typeof body.error === "object" && body.error !== null ? (body.error as Record<string, unknown>) : null;
  const statusCode = asCode(body?.status);
  const code =
    asCode(body?.code) ??
    asCode(body?.error_code) ??
    asCode(nested?.code) ??
    asCode(body?.error) ??
    (statusCode && !GENERIC_STATUS.has(statusCode) ? statusCode : null);
  const serviceMessage =
    (asCode(body?.error) === null ? asText(body?.error) : null) ?? asText(body?.message) ?? asText(nested?.message);
  const retryAfterMs =
    parseRetryAfter(body?.retry_after, nowMs) ?? parseRetryAfter(headerValue(headers, "retry-after"), nowMs);
  return new ServiceError({
    kind: "http",
    status,
    code,
    codePublic: asCode(body?.error_code_public),
    errorId: asReference(body?.error_id),
    retryAfterMs,
    body,
    serviceMessage,
  });
}

/** "REFUND_LOOKUP_FAILED, REFUND_MISMATCH: Needs manual attention." Never retried, even with the same key. */
export const MANUAL_ATTENTION_CODES: ReadonlySet<string> = new Set(["REFUND_LOOKUP_FAILED", "REFUND_MISMATCH"]);

/**
 * Failures the service says to retry with the same client_request_id: "PROCESSOR_ERROR: retry with the same key",
 * "service_unavailable, FLOW_PAUSED: retry with the same key", "INTERNAL_ERROR: Retry with the same key".
 */
export const RETRY_WITH_SAME_KEY_CODES: ReadonlySet<string> = new Set([
  "PROCESSOR_ERROR",
  "INTERNAL_ERROR",
  "FLOW_PAUSED",
  "service_unavailable",
]);

/**
 * 5xx codes that describe a configuration problem; retrying changes nothing ("Processor rejected the service's
 * credentials", "Payment processing not configured").
 */
export const NOT_WORTH_RETRYING_CODES: ReadonlySet<string> = new Set([
  "PROCESSOR_UNAVAILABLE",
  "PROCESSOR_NOT_CONFIGURED",
]);

export function needsManualAttention(error: unknown): boolean {
  return isServiceError(error) && error.code !== null && MANUAL_ATTENTION_CODES.has(error.code);
}

/** A 429 from any limiter: `RATE_LIMITED` (refunds), `rate_limit_exceeded` (reporting), spending caps. */
export function isRateLimited(error: unknown): boolean {
  return isServiceError(error) && error.kind === "http" && error.status === 429;
}

/**
 * Whether an attempt that failed this way may be sent again. `idempotent` is true for reads and for writes carrying
 * an idempotency key (refund with client_request_id); other writes are never retried, since a network error, a
 * timeout or a 5xx leaves it unknown whether the change was applied.
 */
export function isRetryable(error: ServiceError, idempotent: boolean): boolean {
  if (!idempotent) return false;
  // The same address and the same oversized answer come back on every attempt.
  if (error.code === RESPONSE_TOO_LARGE || error.code === ADDRESS_REFUSED) return false;
  if (error.kind === "network" || error.kind === "timeout") return true;
  // A schema mismatch repeats identically; a body cut short may not.
  if (error.kind === "invalid_response") return error.transient;
  const status = error.status ?? 0;
  // A spending cap is a 429 too, but it lifts only when the hour/day/month rolls over.
  if (status === 429) return error.code !== "spending_limit_exceeded";
  if (status === 408) return true;
  if (status < 500) return false;
  // The provider-neutral code first ("matching on error_code_public is preferred"): a configuration failure it names
  // is not retried whatever the original code says, and the other way round.
  const codes = [error.codePublic, error.code].filter((c): c is string => c !== null);
  if (codes.some((c) => MANUAL_ATTENTION_CODES.has(c))) return false;
  for (const code of codes) {
    if (RETRY_WITH_SAME_KEY_CODES.has(code)) return true;
    if (NOT_WORTH_RETRYING_CODES.has(code)) return false;
  }
  // "Retrying after a 5xx with the same key is safe."
  return true;
}
