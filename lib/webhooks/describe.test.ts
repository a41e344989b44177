import { describe, expect, it } from "vitest";
import { describeEffect, refusalLabel, unreadableFields } from "./describe";

describe("describeEffect", () => {
  it("names a month window by its month and says whether a re-pull was queued", () => {
    const base = { staleWindows: [{ start: "2026-05-01T00:00:00Z", end: "2026-06-01T00:00:00Z" }], kind: "staleness" };
    expect(describeEffect({ status: "processed", lastError: null, effect: { ...base, autoRefresh: false } })).toBe(
      "Marked May 2026 stale; auto-refresh is off",
    );
    expect(
      describeEffect({
        status: "processed",
        lastError: null,
        effect: { ...base, autoRefresh: true, repulls: [{ pullId: "p" }] },
      }),
    ).toBe("Marked May 2026 stale; re-pull queued");
    expect(
      describeEffect({ status: "processed", lastError: null, effect: { ...base, autoRefresh: true, repullDue: true } }),
    ).toBe("Marked May 2026 stale; re-pull not queued yet");
  });

  it("shows other windows by their bounds, December included", () => {
    const effect = {
      kind: "staleness",
      staleWindows: [
        { start: "2026-12-01T00:00:00Z", end: "2027-01-01T00:00:00Z" },
        { start: "2026-12-01T00:00:00Z", end: "2026-12-16T00:00:00Z" },
      ],
      autoRefresh: true,
    };
    expect(describeEffect({ status: "processed", lastError: null, effect })).toBe(
      "Marked December 2026, 2026-12-01 to 2026-12-15 stale",
    );
  });

  it("covers the other outcomes", () => {
    expect(
      describeEffect({ status: "processed", lastError: null, effect: { kind: "staleness", staleWindows: [] } }),
    ).toBe("No snapshot covers this time; nothing to mark");
    expect(
      describeEffect({
        status: "processed",
        lastError: null,
        effect: { kind: "cancellation", accessUntil: "2026-06-30T00:00:00Z" },
      }),
    ).toBe("Canceled; access until 2026-06-30 00:00 UTC");
    expect(describeEffect({ status: "processed", lastError: null, effect: { kind: "stored" } })).toBe("Stored");
    const unreadable = { status: "unprocessable", lastError: null, effect: null };
    expect(describeEffect({ ...unreadable, eventType: "subscription.refunded" })).toMatch(/window .* marked stale/);
    expect(describeEffect({ ...unreadable, eventType: "subscription.canceled" })).toMatch(/nothing was changed$/);
    expect(
      describeEffect({
        status: "processed",
        lastError: null,
        effect: { kind: "dispute", disputeId: "dp_1", orderId: "ord_1", usdAmount: "10.00", status: "open" },
      }),
    ).toBe("Dispute dp_1 recorded as open (USD 10.00) on order ord_1");
    expect(
      describeEffect({
        status: "processed",
        lastError: null,
        effect: { kind: "dispute", disputeId: "dp_2", orderId: "ord_2", status: "open", dropped: ["reason"] },
      }),
    ).toBe("Dispute dp_2 recorded as open on order ord_2, without its reason (not as documented)");
    expect(
      describeEffect({
        status: "processed",
        lastError: null,
        effect: { kind: "dispute", disputeId: "dp_1", orderId: "ord_1", status: "lost" },
      }),
    ).toBe("Dispute dp_1 recorded as closed lost");
    expect(describeEffect({ status: "failed", lastError: "boom", effect: null })).toBe("Failed: boom");
    expect(describeEffect({ status: "pending", lastError: null, effect: null })).toBe("Waiting to be processed");
    expect(refusalLabel("timestamp_too_old")).toBe("Signed more than 5 minutes ago");
    expect(refusalLabel("something_new")).toBe("something_new");
  });
});

describe("unreadableFields", () => {
  it("names the fields found wrong on receipt, or else when processed, or none", () => {
    expect(unreadableFields({ parseIssues: ["data.order_id: required"], effect: null })).toEqual([
      "data.order_id: required",
    ]);
    // A purchase.disputed without its dispute_id passes the envelope's check, and is found out when processed.
    const processed = { parseIssues: null, effect: { kind: "unprocessable", issues: ["data.dispute_id: required"] } };
    expect(unreadableFields(processed)).toEqual(["data.dispute_id: required"]);
    expect(unreadableFields({ parseIssues: null, effect: { kind: "dispute" } })).toBeNull();
    expect(unreadableFields({ parseIssues: [], effect: null })).toBeNull();
  });
});
