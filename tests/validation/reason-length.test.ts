import { describe, expect, it } from "vitest";
import { reasonSchema } from "@/app/(desk)/subscriptions/schemas";
import { parseReason } from "@/emulator/routes/subscriptions";
import { overrideReasonSchema } from "@/lib/payouts/schemas";
import { cancelSubscriptionInputSchema, refundInputSchema } from "@/lib/service/inputs";

/** "Cancel and refund reason: at most 500 characters": counted in characters, an emoji one, as the service counts. */
describe("a cancel or refund reason", () => {
  const emoji = "🙂".repeat(300);
  it("of 300 emoji (600 UTF-16 units) is taken by the form, the client and the emulator", () => {
    expect(reasonSchema.safeParse(emoji)).toEqual({ success: true, data: emoji });
    expect(cancelSubscriptionInputSchema.safeParse({ reason: emoji }).success).toBe(true);
    expect(refundInputSchema.safeParse({ clientRequestId: "k-1", reason: emoji }).success).toBe(true);
    expect(parseReason(emoji)).toBe(emoji);
  });

  it("of 501 characters is refused by each", () => {
    const long = "é".repeat(501);
    expect(reasonSchema.safeParse(long).success).toBe(false);
    expect(cancelSubscriptionInputSchema.safeParse({ reason: long }).success).toBe(false);
    expect(() => parseReason(long)).toThrow(/longer than 500 characters/);
  });
});

describe("a flag override's reason", () => {
  it("is counted in characters too: 600 emoji are taken, five are too short", () => {
    expect(overrideReasonSchema.safeParse("🙂".repeat(600)).success).toBe(true);
    expect(overrideReasonSchema.safeParse("🙂".repeat(5)).success).toBe(false);
    expect(overrideReasonSchema.safeParse("é".repeat(1001)).success).toBe(false);
  });
});
