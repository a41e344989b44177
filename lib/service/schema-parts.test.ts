import { describe, expect, it } from "vitest";
import { subscriptionBody } from "./__fixtures__/bodies";
import { percentSchema } from "./schema-parts";
import { formatIssues, getSubscriptionResponseSchema } from "./schemas";

describe("service timestamps", () => {
  it("refuses a timestamp off the calendar or the clock by its path, once, and reads every ISO 8601 form", () => {
    for (const [at, issues] of [
      ["2026-02-30T00:00:00Z", ["subscription.created_at: custom"]],
      ["2026-03-01T25:00:00Z", ["subscription.created_at: custom"]],
      ["yesterday", ["subscription.created_at: invalid_format"]],
      // Finer than a nanosecond is no ISO 8601 the desk reads: refused as a format, once.
      ["2026-03-01T10:00:00.1234567891Z", ["subscription.created_at: invalid_format"]],
    ] as const) {
      const result = getSubscriptionResponseSchema.safeParse({
        status: "success",
        subscription: { ...subscriptionBody(), created_at: at },
      });
      expect(result.success ? [] : formatIssues(result.error), at).toEqual(issues);
    }
    for (const at of [
      "2026-03-01",
      "2026-03-01T10:00:00,5Z",
      "2026-03-01T10:00:00+0100",
      "2026-03-01T10:00:00.123456Z",
      "0001-01-01T00:00:00Z",
    ])
      expect(
        getSubscriptionResponseSchema.safeParse({
          status: "success",
          subscription: { ...subscriptionBody(), created_at: at },
        }).success,
        at,
      ).toBe(true);
  });
});

describe("a percentage the service sends", () => {
  it("reads a number as its decimal text written out in full, and a string as it is", () => {
    expect(percentSchema.parse(10)).toBe("10");
    expect(percentSchema.parse(12.5)).toBe("12.5");
    expect(percentSchema.parse(1e-7)).toBe("0.0000001");
    expect(percentSchema.parse(0.1 + 0.2)).toBe("0.3");
    expect(percentSchema.parse(100 / 3)).toBe("33.333333333333");
    expect(percentSchema.parse("10.00")).toBe("10.00");
    expect(percentSchema.safeParse("1e-7").success).toBe(false);
  });
});
