import { describe, expect, it } from "vitest";
import type { Reversal } from "@/lib/service/schemas";
import { parseWindow, splitWindow } from "@/lib/time";
import { completenessChecks, mergeReversals, netsToZeroIn } from "./merge";
import { compareVersions, normalise } from "./drift";

const WINDOW = parseWindow("2026-03-01", "2026-04-01");
const [FIRST, SECOND] = splitWindow(WINDOW, 2) as [typeof WINDOW, typeof WINDOW];

function reversal(part: Partial<Reversal>): Reversal {
  return {
    period_id: 7,
    subscription_id: "SUB_1700000000_AAAA0001",
    period_seq: 1,
    status: "refunded",
    paid_at: "2026-03-10T00:00:00Z",
    settled_in_this_window: true,
    amount_usd: "10.00",
    originally_attributed_usd: "1.80",
    refunded_to_date_usd: "10.00",
    latest_refund_at: "2026-03-25T00:00:00Z",
    reversed_attributed_usd: "0.90",
    partner_revenue_reversed_usd: "4.50",
    refund_events: [],
    reversal_basis: "refund_receipts",
    nets_to_zero_in_window: false,
    note: null,
    ...part,
  };
}

const event = (at: string, before: string, after: string) => ({
  refunded_at: at,
  refunded_amount_usd: "5.00",
  cumulative_refunded_before_usd: before,
  cumulative_refunded_after_usd: after,
  reversed_attributed_usd: "0.90",
  partner_revenue_reversed_usd: "4.50",
  partner_revenue_reversal_basis: "clawback" as const,
  is_full_refund: after === "10.00",
  settled_by_invo: false as const,
});

describe("merging reversal rows of adjacent sub-windows", () => {
  it("sums this-window figures and finds a period that nets to zero only in the whole window", () => {
    // Settled and half refunded in the first half, the rest refunded in the second half.
    const inFirst = reversal({ refund_events: [event("2026-03-12T00:00:00Z", "0.00", "5.00")] });
    const inSecond = reversal({
      refund_events: [event("2026-03-25T00:00:00Z", "5.00", "10.00")],
      settled_in_this_window: false,
    });
    expect(netsToZeroIn(FIRST, inFirst)).toBe(false);
    expect(netsToZeroIn(SECOND, inSecond)).toBe(false);
    const [merged] = mergeReversals(WINDOW, [inSecond, inFirst]);
    expect(merged?.reversed_attributed_usd).toBe("1.80");
    expect(merged?.partner_revenue_reversed_usd).toBe("9.00");
    expect(merged?.refund_events.map((e) => e.refunded_at)).toEqual(["2026-03-12T00:00:00Z", "2026-03-25T00:00:00Z"]);
    expect(merged?.settled_in_this_window).toBe(true);
    expect(merged?.nets_to_zero_in_window).toBe(true);
  });
});

describe("merging figures finer than a cent", () => {
  it("keeps the sum exact instead of rounding it to the cent", () => {
    const inFirst = reversal({
      refund_events: [event("2026-03-12T00:00:00Z", "0.00", "5.00")],
      reversed_attributed_usd: "0.905",
      partner_revenue_reversed_usd: "4.5025",
    });
    const inSecond = reversal({
      refund_events: [event("2026-03-25T00:00:00Z", "5.00", "10.00")],
      settled_in_this_window: false,
      reversed_attributed_usd: "0.9",
      partner_revenue_reversed_usd: "4.5",
    });
    const [merged] = mergeReversals(WINDOW, [inSecond, inFirst]);
    expect(merged?.reversed_attributed_usd).toBe("1.805");
    expect(merged?.partner_revenue_reversed_usd).toBe("9.0025");
  });

  it("keeps a part's nets-to-zero for a reversal the service reported without events (period-row basis)", () => {
    // Settled and fully refunded inside the first part, so inside the whole window too.
    const coarse = reversal({ reversal_basis: "period_row", refund_events: [], nets_to_zero_in_window: true });
    const [merged] = mergeReversals(WINDOW, [coarse]);
    expect(merged?.nets_to_zero_in_window).toBe(true);
    // Not settled in the window: nothing to net to zero, whatever a part said.
    const settledBefore = reversal({
      paid_at: "2026-02-10T00:00:00Z",
      refund_events: [],
      nets_to_zero_in_window: true,
    });
    expect(mergeReversals(WINDOW, [settledBefore])[0]?.nets_to_zero_in_window).toBe(false);
  });
});

describe("drift", () => {
  it("compares values from the service and from the database alike", () => {
    expect(normalise("amount", "10.00")).toBe(normalise("amount", "10"));
    expect(normalise("amount", "-0.50")).toBe("-0.5");
    expect(normalise("instant", new Date("2026-03-01T00:00:00Z"))).toBe("2026-03-01T00:00:00Z");
    const rows = {
      recipients: [],
      lines: [{ period_id: 1, attributed_amount_usd: "1.80" }],
      reversals: [],
      events: [],
    };
    const changed = { ...rows, lines: [{ period_id: "1", attributed_amount_usd: "1.95" }] };
    expect(compareVersions({ totals: {}, rows }, { totals: {}, rows: changed })).toEqual([
      {
        severity: "drift",
        entity: "line",
        entityKey: "1",
        field: "attributed_amount_usd",
        previous: "1.8",
        current: "1.95",
      },
    ]);
  });
});

describe("completenessChecks", () => {
  it("holds the list to its own figures, not to totals.recipient_count, whose meaning the spec leaves open", () => {
    // A service counting recipients otherwise (those with a renewal only, say) than the list shows them: the list read
    // is held to the pagination's total as it is read; the checks find nothing missing.
    const assembled = {
      totals: {
        recipient_count: 0,
        renewals_with_attribution: 0,
        gross_attributed_usd: "0.00",
        net_attributed_usd: "-1.20",
      },
      recipients: [
        {
          recipient: { player_id: 41 },
          gross_attributed_usd: "0.00",
          reversed_attributed_usd: "1.20",
          net_attributed_usd: "-1.20",
          renewal_count: 0,
          reversal_count: 1,
          periods: [],
          periods_truncated: false,
          reversals: [reversal({ reversed_attributed_usd: "1.20" })],
          reversals_truncated: false,
        },
      ],
    } as unknown as Parameters<typeof completenessChecks>[0];
    const checks = completenessChecks(assembled);
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    // And a recipient listed twice is still found.
    const twice = { ...assembled, recipients: [...assembled.recipients, ...assembled.recipients] };
    expect(
      completenessChecks(twice as typeof assembled)
        .filter((c) => !c.ok)
        .map((c) => c.name),
    ).toContain("recipients listed once each");
  });
});
