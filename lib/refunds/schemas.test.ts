import { describe, expect, it } from "vitest";
import { attemptIdSchema } from "@/app/(desk)/subscriptions/schemas";
import { refundAttemptIdSchema } from "./schemas";

describe("refundAttemptIdSchema", () => {
  it("is the one schema of a refund attempt id, reused by the support forms", () => {
    expect(attemptIdSchema).toBe(refundAttemptIdSchema);
    expect(refundAttemptIdSchema.safeParse("6f1c2a4e-2b7d-4c1a-9e3f-0a1b2c3d4e5f").success).toBe(true);
    expect(refundAttemptIdSchema.safeParse("not-an-id").error?.issues[0]?.message).toBe("must be a refund attempt id");
  });
});
