import { describe, expect, it } from "vitest";
import { subscriptionIdInputSchema } from "@/lib/service/inputs";
import { SUBSCRIPTION_ID_EXAMPLE, subscriptionIdSchema } from "./schemas";

describe("subscriptionIdSchema", () => {
  it("accepts the service's form and refuses anything else", () => {
    expect(subscriptionIdSchema.parse(SUBSCRIPTION_ID_EXAMPLE)).toBe(SUBSCRIPTION_ID_EXAMPLE);
    expect(subscriptionIdSchema.safeParse("SUB_1767225600_ab12cd34").success).toBe(true);
    // "8 characters": the spec names no alphabet.
    for (const good of ["SUB_1767225600_AB-2_D34", "SUB_1767225600_ab.2cd3~"])
      expect(subscriptionIdSchema.safeParse(good).success, good).toBe(true);
    for (const bad of [
      "SUB_1767225600_AB12CD3",
      "SUB_1767225600_AB12CD345",
      "sub_1767225600_AB12CD34",
      "SUB__AB12CD34",
      "SUB_1767225600_AB 2CD34",
      "SUB_1767225600_ab@c.com",
      "SUB_1767225600_AB/2CD34",
      "SUB_1767225600_AB%2CD34",
      "12345",
      "",
    ])
      expect(subscriptionIdSchema.safeParse(bad).success, bad).toBe(false);
  });

  it("is the one the service client checks its ids with, before anything is sent", () => {
    expect(subscriptionIdInputSchema).toBe(subscriptionIdSchema);
    expect(subscriptionIdInputSchema.safeParse("not_a_subscription").success).toBe(false);
  });
});
