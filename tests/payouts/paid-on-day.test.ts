import { afterEach, describe, expect, it } from "vitest";
import { localDay } from "@/app/_components/payouts/payment-fields";

/** "Paid on" offers the day it is where the person is, which the server's UTC day is not around midnight UTC. */
const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe("the day offered as paid on", () => {
  it("is the person's own calendar day, behind or ahead of UTC's", () => {
    process.env.TZ = "America/Los_Angeles";
    // 17:00 on New Year's Eve in California is already 2027 in UTC.
    expect(localDay(new Date("2027-01-01T01:00:00Z"))).toBe("2026-12-31");
    process.env.TZ = "Pacific/Auckland";
    expect(localDay(new Date("2026-12-31T12:00:00Z"))).toBe("2027-01-01");
    process.env.TZ = "UTC";
    expect(localDay(new Date("2026-02-28T23:59:59Z"))).toBe("2026-02-28");
  });
});
