import { describe, expect, it } from "vitest";
import { classifyRefundFailure, describeChangeFailure, describeRefundFailure, REFUND_ERROR_MESSAGES } from "./messages";

/** The spec's refund error table, code by code, with what Payout Desk must do after each. */
const SPEC_REFUND_ERRORS: [number, string, "retry_same_key" | "refused" | "manual_attention"][] = [
  [400, "CLIENT_REQUEST_ID_REQUIRED", "refused"],
  [400, "CLIENT_REQUEST_ID_INVALID", "refused"],
  [400, "CLIENT_REQUEST_ID_TOO_LONG", "refused"],
  [400, "CLIENT_REQUEST_ID_RESERVED", "refused"],
  [400, "INVALID_PERIOD_SEQ", "refused"],
  [404, "PERIOD_NOT_FOUND", "refused"],
  [400, "INVALID_AMOUNT", "refused"],
  [400, "AMOUNT_EXCEEDS_REMAINING", "refused"],
  [400, "INVALID_BODY", "refused"],
  [404, "SUBSCRIPTION_NOT_FOUND", "refused"],
  [409, "NO_PAID_PERIOD", "refused"],
  [409, "PERIOD_NOT_REFUNDABLE", "refused"],
  [409, "ALREADY_REFUNDED", "refused"],
  [409, "PCSTORE_REFUND_NOT_SUPPORTED", "refused"],
  [409, "MINT_ORDER_MISSING", "refused"],
  [409, "NO_PAYMENT_REFERENCE", "refused"],
  [502, "REFUND_LOOKUP_FAILED", "manual_attention"],
  [502, "REFUND_MISMATCH", "manual_attention"],
  [502, "PROCESSOR_ERROR", "retry_same_key"],
  [503, "service_unavailable", "retry_same_key"],
  [503, "FLOW_PAUSED", "retry_same_key"],
  [500, "INTERNAL_ERROR", "retry_same_key"],
  [429, "RATE_LIMITED", "retry_same_key"],
  // Not the spec's: the client's own refusal to send while an earlier 429's wait stands.
  [429, "RATE_LIMIT_PAUSE", "retry_same_key"],
];

describe("refund error messages", () => {
  it.each(SPEC_REFUND_ERRORS)("%s %s has its own sentence and the right next step", (status, code, expected) => {
    expect(REFUND_ERROR_MESSAGES[code], code).toBeDefined();
    const failure = { kind: "http" as const, status, code, errorId: "err_123", body: {} };
    expect(classifyRefundFailure(failure)).toBe(expected);
    const message = describeRefundFailure(failure);
    expect(message).toMatch(/service error id err_123/);
    expect(message).not.toMatch(/HTTP \d{3}/);
    if (expected === "refused") expect(message).toMatch(/Nothing was refunded|nothing to refund/);
    if (expected === "retry_same_key") expect(message).toMatch(/same request id/);
    if (expected === "manual_attention") expect(message).toMatch(/manual attention: do not refund again/);
  });

  it("quotes the figures the refusal carries", () => {
    expect(
      describeRefundFailure({
        kind: "http",
        status: 400,
        code: "AMOUNT_EXCEEDS_REMAINING",
        body: { remaining_refundable_usd: "7.00", already_refunded_usd: "1234.50" },
      }),
    ).toBe(
      "The amount is more than what is left to refund on this period: USD 7.00 remains refundable (USD 1,234.50 " +
        "already refunded). Nothing was refunded. Enter at most the remaining amount.",
    );
    expect(
      describeRefundFailure({
        kind: "http",
        status: 409,
        code: "ALREADY_REFUNDED",
        body: { refunded_amount_usd: "9.99", amount_usd: "9.99" },
      }),
    ).toMatch(/USD 9.99 of USD 9.99/);
    expect(
      describeRefundFailure({
        kind: "http",
        status: 409,
        code: "PERIOD_NOT_REFUNDABLE",
        body: { period_status: "failed" },
      }),
    ).toMatch(/status is failed/);
  });

  it("never calls an unknown outcome refused: no answer, a 5xx or an unreadable 200 keep the key", () => {
    expect(classifyRefundFailure({ kind: "network", status: null, code: "ECONNRESET" })).toBe("retry_same_key");
    expect(classifyRefundFailure({ kind: "timeout", status: null, code: null })).toBe("retry_same_key");
    expect(classifyRefundFailure({ kind: "http", status: 504, code: null })).toBe("retry_same_key");
    expect(classifyRefundFailure({ kind: "invalid_response", status: 200, code: null })).toBe("manual_attention");
    expect(classifyRefundFailure({ kind: "invalid_response", status: 502, code: null })).toBe("retry_same_key");
    // error_code_public is read too ("matching on error_code_public is preferred")
    expect(
      classifyRefundFailure({ kind: "http", status: 502, code: "UPSTREAM_X", codePublic: "PROCESSOR_ERROR" }),
    ).toBe("retry_same_key");
    // "Processor rejected the service's credentials; nothing sent, no charge."
    expect(classifyRefundFailure({ kind: "http", status: 503, code: null, codePublic: "PROCESSOR_UNAVAILABLE" })).toBe(
      "refused",
    );
    // Beside an original code that alone would be retried, the provider-neutral one decides, and is what is said.
    const notConfigured = {
      kind: "http",
      status: 503,
      code: "service_unavailable",
      codePublic: "PROCESSOR_NOT_CONFIGURED",
    } as const;
    expect(classifyRefundFailure(notConfigured)).toBe("refused");
    expect(describeRefundFailure(notConfigured)).toMatch(/not configured at the service for refunds/);
  });

  it("subscription changes: refusals say why; no answer says to reload before acting again", () => {
    expect(describeChangeFailure({ kind: "http", status: 409, code: "SUBSCRIPTION_TERMINAL" }, "change")).toEqual({
      message: "The subscription is canceled or expired; its price and card can no longer change.",
      outcomeUnknown: false,
    });
    expect(
      describeChangeFailure(
        {
          kind: "http",
          status: 409,
          code: "PCSTORE_REAUTHORIZATION_REQUIRED",
          body: { current_amount_usd: "8.00", requested_amount_usd: "9.00" },
        },
        "change",
      ).message,
    ).toMatch(/USD 8.00 to USD 9.00/);
    expect(describeChangeFailure({ kind: "http", status: 503, code: "FLOW_PAUSED" }, "change").outcomeUnknown).toBe(
      false,
    );
    // Refused by the client while an earlier 429's wait stands: nothing sent, for a cancel too.
    expect(describeChangeFailure({ kind: "http", status: 429, code: "RATE_LIMIT_PAUSE" }, "cancel")).toEqual({
      message:
        "Not sent: the service asked Payout Desk to wait before calling again, and the wait is not over. Try again " +
        "in a minute.",
      outcomeUnknown: false,
    });
    // A 503 saying service_unavailable sent nothing: refused, not "may or may not have been applied".
    const unavailable = { kind: "http", status: 503, code: null, body: { status: "service_unavailable" } } as const;
    expect(describeChangeFailure(unavailable, "change")).toMatchObject({ outcomeUnknown: false });
    expect(describeChangeFailure(unavailable, "change").message).toMatch(
      /^The service is paused for maintenance; the change was not/,
    );
    expect(
      describeChangeFailure({ kind: "http", status: 503, code: "service_unavailable" }, "change").outcomeUnknown,
    ).toBe(false);
    expect(describeChangeFailure({ kind: "timeout", status: null, code: null }, "change").outcomeUnknown).toBe(true);
    // A connection never made sent nothing; one reset or broken may have carried the change.
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ADDRESS_REFUSED"]) {
      const failure = describeChangeFailure({ kind: "network", status: null, code }, "cancel");
      expect(failure).toEqual({
        message:
          "The service could not be reached, so the change was not sent. Try again in a minute; if it persists, an " +
          "admin checks the game's base URL.",
        outcomeUnknown: false,
      });
    }
    for (const code of ["ECONNRESET", "EPIPE", "ETIMEDOUT", null])
      expect(describeChangeFailure({ kind: "network", status: null, code }, "change").outcomeUnknown).toBe(true);
    // A gateway's 408 may come after the service applied the change: unknown, as for a refund.
    expect(describeChangeFailure({ kind: "http", status: 408, code: null }, "cancel").outcomeUnknown).toBe(true);
    // A cancel is never paused: a 503 to it, whatever its body says, may have canceled.
    for (const paused of [{ code: "FLOW_PAUSED" }, { code: null, body: { status: "service_unavailable" } }]) {
      const failure = describeChangeFailure({ kind: "http", status: 503, ...paused }, "cancel");
      expect(failure.outcomeUnknown).toBe(true);
      expect(failure.message).toMatch(/may or may not have been applied/);
    }
    expect(describeChangeFailure({ kind: "http", status: 500, code: "INTERNAL_ERROR" }, "change").outcomeUnknown).toBe(
      true,
    );
  });
});
