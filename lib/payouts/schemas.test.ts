import { describe, expect, it } from "vitest";
import { batchRevisionSchema } from "./schemas";

describe("a batch's revision", () => {
  it("reads leading zeros as the revision they write", () => {
    expect(batchRevisionSchema.parse("007")).toBe("7");
    expect(batchRevisionSchema.parse("0")).toBe("0");
    expect(batchRevisionSchema.parse("123456789012345678")).toBe("123456789012345678");
  });

  it("refuses what is not a revision", () => {
    for (const value of ["", "-1", "1.5", "7 ", "1234567890123456789"]) {
      expect(batchRevisionSchema.safeParse(value).success).toBe(false);
    }
  });
});
