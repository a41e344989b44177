import { describe, expect, it } from "vitest";
import { webhookEventIdSchema } from "./event-id";

describe("webhookEventIdSchema", () => {
  it("takes only ids that fit a bigint, so a page or a retry never fails in the database", () => {
    for (const id of ["1", "42", "999999999999999999"])
      expect(webhookEventIdSchema.safeParse(id).success, id).toBe(true);
    for (const id of ["", "0x10", "-1", "1.5", "9999999999999999999", "9223372036854775807"])
      expect(webhookEventIdSchema.safeParse(id).success, id).toBe(false);
  });
});
