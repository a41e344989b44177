import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScale, SCALE_GAME_SECRET, scaleScenario } from "@/emulator/scenario/scale";
import { type Client, startClient } from "./helpers";

const SHAPE = { recipients: 40, renewals: 2_000, month: "2026-10" };
let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: scaleScenario(SHAPE), rateLimits: "off" }, SCALE_GAME_SECRET);
});
afterAll(() => client.close());

describe("the scale scenario", () => {
  it("reads RECIPIENTS:RENEWALS", () => {
    expect(parseScale("100000:1000000")).toEqual({ recipients: 100_000, renewals: 1_000_000 });
    expect(parseScale("10:5")).toBeNull();
    expect(parseScale("0:10")).toBeNull();
    expect(parseScale("100000")).toBeNull();
  });

  it("pays every recipient from the month's renewals, with one in a thousand refunded", async () => {
    const answer = await client.get("/api/subscriptions/reporting/attribution", {
      query: { start: "2026-10-01", end: "2026-11-01", limit: 100 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.recipients).toHaveLength(SHAPE.recipients);
    expect(answer.body.totals).toMatchObject({ renewals_settled: SHAPE.renewals });
    const reversals = answer.body.recipients.reduce(
      (n: number, r: { reversal_count?: number }) => n + (r.reversal_count ?? 0),
      0,
    );
    // The 1,000th renewal settles early in the month; the 2,000th too late for its refund an hour later to fall in it.
    const refunded = (scaleScenario(SHAPE).subscriptions ?? []).filter((s) => (s.refunds ?? []).length > 0);
    expect(refunded).toHaveLength(1);
    expect(reversals).toBe(1);
  });
});
