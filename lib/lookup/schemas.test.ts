import { describe, expect, it } from "vitest";
import { subscriptionIdInputSchema } from "@/lib/service/inputs";
import { SUBSCRIPTION_ID_EXAMPLE, subscriptionIdSchema } from "./schemas";

describe("subscriptionIdSchema", () => {
  it("accepts the service's form and refuses anything else", () => {
    expect(subscriptionIdSchema.parse(SUBSCRIPTION_ID_EXAMPLE)).toBe(SUBSCRIPTION_ID_EXAMPLE);
    expect(subscriptionIdSchema.safeParse("SUB_1767225600_ab12cd34").success).toBe(true);
    for (const bad of ["SUB_1767225600_AB12CD3", "sub_1767225600_AB12CD34", "SUB__AB12CD34", "12345", ""])
      expect(subscriptionIdSchema.safeParse(bad).success, bad).toBe(false);
  });

  it("is the one the service client checks its ids with, before anything is sent", () => {
    expect(subscriptionIdInputSchema).toBe(subscriptionIdSchema);
    expect(subscriptionIdInputSchema.safeParse("not_a_subscription").success).toBe(false);
  });
});
