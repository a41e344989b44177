import { describe, expect, it } from "vitest";
import { taxFormInputSchema } from "./schemas";

describe("taxFormInputSchema", () => {
  it("refuses a date that is not on the calendar as a field error, never by throwing", () => {
    for (const day of ["2026-13-01", "2026-00-10", "2026-01-32", "2026-02-30"]) {
      const parsed = taxFormInputSchema.safeParse({ taxForm: "W-9", taxFormReceivedOn: day });
      expect(parsed.success, day).toBe(false);
      expect(
        parsed.error?.issues.map((i) => [i.path.join("."), i.message]),
        day,
      ).toEqual([["taxFormReceivedOn", "The received date is not a calendar date"]]);
    }
    expect(taxFormInputSchema.parse({ taxForm: "W-9", taxFormReceivedOn: "2028-02-29" })).toMatchObject({
      taxFormReceivedOn: "2028-02-29",
    });
  });
});
