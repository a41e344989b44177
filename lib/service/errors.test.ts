import { describe, expect, it } from "vitest";
import {
  ServiceError,
  isRateLimited,
  isRetryable,
  needsManualAttention,
  parseRetryAfter,
  parseServiceError,
} from "./errors";

const NOW = Date.parse("2026-03-10T12:00:00Z");
const json = (value: unknown) => JSON.stringify(value);

describe("parseServiceError: envelope shapes", () => {
  it("reads the standard envelope {error, error_code, error_id, timestamp}", () => {
    const error = parseServiceError(
      404,
      {},
      json({
        error: "Subscription not found for this game",
        error_code: "SUBSCRIPTION_NOT_FOUND",
        error_id: "err_7f3a",
        timestamp: "2026-03-10T12:00:00Z",
        unknown_extra: { nested: true },
      }),
      NOW,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe("http");
    expect(error.status).toBe(404);
    expect(error.code).toBe("SUBSCRIPTION_NOT_FOUND");
    expect(error.errorId).toBe("err_7f3a");
    expect(error.serviceMessage).toBe("Subscription not found for this game");
    expect(error.codePublic).toBeNull();
    expect(error.retryAfterMs).toBeNull();
    expect(error.message).toContain("404");
    expect(error.message).toContain("SUBSCRIPTION_NOT_FOUND");
    expect(error.message).toContain("err_7f3a");
  });

  it("prefers code over error_code over error", () => {
    expect(parseServiceError(400, {}, json({ code: "A_CODE", error_code: "B_CODE", error: "C_CODE" }), NOW).code).toBe(
      "A_CODE",
    );
    expect(parseServiceError(400, {}, json({ error_code: "B_CODE", error: "C_CODE" }), NOW).code).toBe("B_CODE");
    expect(parseServiceError(400, {}, json({ error: "WINDOW_INVALID" }), NOW).code).toBe("WINDOW_INVALID");
  });

  it("keeps error_code and error_code_public side by side", () => {
    const error = parseServiceError(
      502,
      {},
      json({ error: "Processor refused", error_code: "STRIPE_CARD_ERROR", error_code_public: "PROCESSOR_ERROR" }),
      NOW,
    );
    expect(error.code).toBe("STRIPE_CARD_ERROR");
    expect(error.codePublic).toBe("PROCESSOR_ERROR");
    expect(error.message).toContain("STRIPE_CARD_ERROR / PROCESSOR_ERROR");
  });

  it("keeps an error id or public code only when it is one, never the text put there", () => {
    const read = (body: Record<string, unknown>) => parseServiceError(500, {}, json({ error: "Failed", ...body }), NOW);
    expect(read({ error_id: 4411 }).errorId).toBe("4411");
    expect(read({ error_id: "0b6f2c1e-9d1a-4a8e-8f55-2f0c1c7d4e10" }).errorId).toBe(
      "0b6f2c1e-9d1a-4a8e-8f55-2f0c1c7d4e10",
    );
    const prose = read({ error_id: "card of kim@example.org declined", error_code_public: "see the player's card" });
    expect([prose.errorId, prose.codePublic]).toEqual([null, null]);
    expect(prose.message).not.toContain("kim@example.org");
  });

  it("reads a code from `error` when that is all a refusal carries (spending_limit_exceeded)", () => {
    const error = parseServiceError(
      429,
      {},
      json({ error: "spending_limit_exceeded", message: "Daily spending cap reached" }),
      NOW,
    );
    expect(error.code).toBe("spending_limit_exceeded");
    expect(error.serviceMessage).toBe("Daily spending cap reached");
  });

  it("does not take human text in `error` for a code", () => {
    for (const text of ["Not found", "Unauthorized", "invalid", "Window end must be after start."]) {
      const error = parseServiceError(400, {}, json({ error: text }), NOW);
      expect(error.code, text).toBeNull();
      expect(error.serviceMessage).toBe(text);
    }
  });

  it("uses service_unavailable for the 503 {status: service_unavailable} body with no codes", () => {
    const error = parseServiceError(503, {}, json({ status: "service_unavailable" }), NOW);
    expect(error.code).toBe("service_unavailable");
    expect(error.status).toBe(503);
  });

  it("does not turn a generic status word into a code", () => {
    expect(parseServiceError(409, {}, json({ status: "failed", order_status: "failed" }), NOW).code).toBeNull();
    expect(parseServiceError(500, {}, json({ status: "error" }), NOW).code).toBeNull();
  });

  it("reads a nested {error: {code, message}}", () => {
    const error = parseServiceError(
      400,
      {},
      json({ error: { code: "INVALID_BODY", message: "Not a JSON object" } }),
      NOW,
    );
    expect(error.code).toBe("INVALID_BODY");
    expect(error.serviceMessage).toBe("Not a JSON object");
  });

  it("keeps the body for fields such as remaining_refundable_usd", () => {
    const error = parseServiceError(
      400,
      {},
      json({
        error: "Amount exceeds remaining refundable",
        error_code: "AMOUNT_EXCEEDS_REMAINING",
        remaining_refundable_usd: "3.50",
        already_refunded_usd: "6.49",
      }),
      NOW,
    );
    expect(error.code).toBe("AMOUNT_EXCEEDS_REMAINING");
    expect(error.body?.remaining_refundable_usd).toBe("3.50");
    expect(error.body?.already_refunded_usd).toBe("6.49");
  });

  it("survives bodies that are not JSON objects", () => {
    for (const body of ["", "<html>502 Bad Gateway</html>", "null", "[1,2]", '"text"']) {
      const error = parseServiceError(502, {}, body, NOW);
      expect(error.code, body).toBeNull();
      expect(error.body).toBeNull();
      expect(error.message).toContain("502");
    }
  });

  it("accepts a numeric error_id", () => {
    expect(parseServiceError(500, {}, json({ error_code: "INTERNAL_ERROR", error_id: 991 }), NOW).errorId).toBe("991");
  });

  it("never puts the service's human text in the message (it may name a player)", () => {
    const error = parseServiceError(404, {}, json({ error: "No player jane@example.com", error_code: "X_Y" }), NOW);
    expect(error.message).not.toContain("jane@example.com");
    expect(error.serviceMessage).toContain("jane@example.com");
  });

  it("names the request once the client attaches it", () => {
    const error = parseServiceError(404, {}, json({ error_code: "PERIOD_NOT_FOUND" }), NOW).withRequest(
      "GET",
      "/api/subscriptions/reporting/periods/9",
      3,
    );
    expect(error.message).toBe("GET /api/subscriptions/reporting/periods/9: service answered 404 PERIOD_NOT_FOUND");
    expect(error.attempts).toBe(3);
  });
});

describe("retry_after", () => {
  it("reads seconds from the body (429 rate_limit_exceeded)", () => {
    const error = parseServiceError(
      429,
      new Headers({ "Retry-After": "30" }),
      json({ error: "rate_limit_exceeded", retry_after: 12 }),
      NOW,
    );
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.retryAfterMs).toBe(12_000);
    expect(isRateLimited(error)).toBe(true);
  });

  it("reads seconds given as a string, and fractions", () => {
    expect(parseServiceError(429, {}, json({ retry_after: "5" }), NOW).retryAfterMs).toBe(5_000);
    expect(parseServiceError(429, {}, json({ retry_after: 1.5 }), NOW).retryAfterMs).toBe(1_500);
  });

  it("reads an absolute timestamp in the body", () => {
    const iso = parseServiceError(429, {}, json({ retry_after: "2026-03-10T12:00:45Z" }), NOW);
    expect(iso.retryAfterMs).toBe(45_000);
    const epochSeconds = parseServiceError(429, {}, json({ retry_after: NOW / 1000 + 20 }), NOW);
    expect(epochSeconds.retryAfterMs).toBe(20_000);
    const epochMs = parseServiceError(429, {}, json({ retry_after: NOW + 7_000 }), NOW);
    expect(epochMs.retryAfterMs).toBe(7_000);
    const past = parseServiceError(429, {}, json({ retry_after: "2026-03-10T11:00:00Z" }), NOW);
    expect(past.retryAfterMs).toBe(0);
  });

  it("falls back to the Retry-After header: seconds or HTTP-date", () => {
    expect(parseServiceError(429, new Headers({ "Retry-After": "30" }), json({ error: "x" }), NOW).retryAfterMs).toBe(
      30_000,
    );
    expect(parseServiceError(503, { "retry-after": "Tue, 10 Mar 2026 12:01:00 GMT" }, "", NOW).retryAfterMs).toBe(
      60_000,
    );
    expect(parseServiceError(503, { "Retry-After": "soon" }, "", NOW).retryAfterMs).toBeNull();
  });

  it("prefers the body to the header", () => {
    expect(parseServiceError(429, { "Retry-After": "99" }, json({ retry_after: 2 }), NOW).retryAfterMs).toBe(2_000);
    expect(parseServiceError(429, { "Retry-After": "99" }, json({ retry_after: "junk" }), NOW).retryAfterMs).toBe(
      99_000,
    );
  });

  it("refuses negative and non-finite values", () => {
    expect(parseRetryAfter(-3, NOW)).toBeNull();
    expect(parseRetryAfter(Number.NaN, NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter("", NOW)).toBeNull();
  });
});

describe("isRetryable", () => {
  const http = (status: number, body: unknown) => parseServiceError(status, {}, json(body), NOW);

  it("never retries a write without an idempotency key", () => {
    expect(isRetryable(new ServiceError({ kind: "network" }), false)).toBe(false);
    expect(isRetryable(new ServiceError({ kind: "timeout" }), false)).toBe(false);
    expect(isRetryable(http(503, { status: "service_unavailable" }), false)).toBe(false);
    expect(isRetryable(http(429, { error: "rate_limit_exceeded", retry_after: 1 }), false)).toBe(false);
  });

  it("retries network errors, timeouts, 429 and 5xx for idempotent requests", () => {
    expect(isRetryable(new ServiceError({ kind: "network" }), true)).toBe(true);
    expect(isRetryable(new ServiceError({ kind: "timeout" }), true)).toBe(true);
    expect(isRetryable(http(429, { error: "rate_limit_exceeded" }), true)).toBe(true);
    expect(isRetryable(http(429, { error_code: "RATE_LIMITED" }), true)).toBe(true);
    expect(isRetryable(http(500, { error_code: "INTERNAL_ERROR" }), true)).toBe(true);
    expect(isRetryable(http(502, { error_code: "PROCESSOR_ERROR" }), true)).toBe(true);
    expect(isRetryable(http(502, { error_code: "X", error_code_public: "PROCESSOR_ERROR" }), true)).toBe(true);
    expect(isRetryable(http(503, { error_code: "FLOW_PAUSED" }), true)).toBe(true);
    expect(isRetryable(http(503, { status: "service_unavailable" }), true)).toBe(true);
    expect(isRetryable(parseServiceError(502, {}, "<html>bad gateway</html>", NOW), true)).toBe(true);
  });

  it("switches on the code: manual-attention refunds are never retried though they are 502", () => {
    const lookup = http(502, { error_code: "REFUND_LOOKUP_FAILED" });
    const mismatch = http(502, { error_code: "REFUND_MISMATCH" });
    expect(isRetryable(lookup, true)).toBe(false);
    expect(isRetryable(mismatch, true)).toBe(false);
    expect(needsManualAttention(lookup)).toBe(true);
    expect(needsManualAttention(mismatch)).toBe(true);
    expect(needsManualAttention(http(502, { error_code: "PROCESSOR_ERROR" }))).toBe(false);
  });

  it("does not retry configuration failures, client errors, spending caps or schema mismatches", () => {
    expect(isRetryable(http(503, { error_code_public: "PROCESSOR_NOT_CONFIGURED" }), true)).toBe(false);
    // The provider-neutral code decides over an original one that alone would be retried.
    const beside = { error_code: "service_unavailable", error_code_public: "PROCESSOR_NOT_CONFIGURED" };
    expect(isRetryable(http(503, beside), true)).toBe(false);
    expect(isRetryable(http(503, { error_code: "service_unavailable" }), true)).toBe(true);
    expect(isRetryable(http(503, { error_code_public: "PROCESSOR_UNAVAILABLE" }), true)).toBe(false);
    expect(isRetryable(http(400, { error_code: "AMOUNT_EXCEEDS_REMAINING" }), true)).toBe(false);
    expect(isRetryable(http(400, { error_code: "WINDOW_TOO_LARGE" }), true)).toBe(false);
    expect(isRetryable(http(401, { error_code: "INVALID_GAME_SECRET" }), true)).toBe(false);
    expect(isRetryable(http(409, { error_code: "ALREADY_REFUNDED" }), true)).toBe(false);
    expect(isRetryable(http(429, { error: "spending_limit_exceeded" }), true)).toBe(false);
    expect(
      isRetryable(new ServiceError({ kind: "invalid_response", status: 200, issues: ["x: invalid_type"] }), true),
    ).toBe(false);
    expect(isRetryable(new ServiceError({ kind: "invalid_response", status: 200, transient: true }), true)).toBe(true);
  });
});
