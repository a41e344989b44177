import { describe, expect, it } from "vitest";
import { isOutcomeUnknown } from "./unknown-outcome";

describe("isOutcomeUnknown", () => {
  it("no answer, 408, unreadable 2xx and 5xx that may follow a refund are unknown", () => {
    expect(isOutcomeUnknown({ status: null, codes: [] })).toBe(true);
    expect(isOutcomeUnknown({ status: 408, codes: [] })).toBe(true);
    expect(isOutcomeUnknown({ status: 200, codes: [], unreadable: true })).toBe(true);
    expect(isOutcomeUnknown({ status: 500, codes: ["INTERNAL_ERROR"] })).toBe(true);
    expect(isOutcomeUnknown({ status: 502, codes: ["PROCESSOR_ERROR", "PROCESSOR_ERROR"] })).toBe(true);
    expect(isOutcomeUnknown({ status: 502, codes: ["REFUND_LOOKUP_FAILED"] })).toBe(true);
    expect(isOutcomeUnknown({ status: 504, codes: [] })).toBe(true);
  });

  it("refusals and pauses that send nothing are known", () => {
    expect(isOutcomeUnknown({ status: 200, codes: [] })).toBe(false);
    expect(isOutcomeUnknown({ status: 401, codes: ["INVALID_GAME_SECRET"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 404, codes: ["SUBSCRIPTION_NOT_FOUND"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 409, codes: ["ALREADY_REFUNDED"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 429, codes: ["RATE_LIMITED"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 503, codes: ["service_unavailable"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 503, codes: ["FLOW_PAUSED"] })).toBe(false);
    expect(isOutcomeUnknown({ status: 503, codes: ["SOME_PROVIDER_CODE", "PROCESSOR_UNAVAILABLE"] })).toBe(false);
  });
});
