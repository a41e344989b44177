import { describe, expect, it } from "vitest";
import { newClientRequestId, refundIntentKey } from "./intent";

const base = {
  gameId: "g1",
  subscriptionId: "SUB_1767225600_AAAA0001",
  periodSeq: 3,
  amountUsd: "5.00",
  remainingBeforeUsd: "10.00",
};

describe("refund intent", () => {
  it("is the same for the same refund written differently", () => {
    expect(refundIntentKey({ ...base, amountUsd: "5", remainingBeforeUsd: "10.0" })).toBe(refundIntentKey(base));
  });

  it("changes with the subscription, period, amount, the remaining amount reviewed, and the game", () => {
    const keys = new Set([
      refundIntentKey(base),
      refundIntentKey({ ...base, periodSeq: 2 }),
      refundIntentKey({ ...base, amountUsd: "5.01" }),
      refundIntentKey({ ...base, remainingBeforeUsd: "5.00" }),
      refundIntentKey({ ...base, subscriptionId: "SUB_1767225600_AAAA0002" }),
      refundIntentKey({ ...base, gameId: "g2" }),
    ]);
    expect(keys.size).toBe(6);
  });

  it("makes request ids the service accepts: at most 255 characters, never sub_-prefixed, unique", () => {
    const ids = Array.from({ length: 100 }, newClientRequestId);
    expect(new Set(ids).size).toBe(100);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(255);
      expect(id.toLowerCase().startsWith("sub_")).toBe(false);
    }
  });
});
