import { describe, expect, it } from "vitest";
import { describeCancelOutcome, describeNextCharge, paidPeriodRunning } from "./cancel-outcome";

/**
 * The cancel dialog says what the service will do. The service decides with its own clock, which is not this machine's
 * (the demo service runs days behind): the dialog once said "ends immediately (NO_PAID_PERIOD)" for a subscription the
 * service then set to cancel at period end, because it compared paid_through with the app's clock.
 */

const LIVE = {
  status: "active",
  paid_through: "2026-12-01T00:00:00Z",
  current_period_start: "2026-11-01T00:00:00Z",
  cancel_at_period_end: false,
};

describe("describeCancelOutcome", () => {
  it(
    "at period end, with a paid period running: stays active " +
      "until paid_through, whatever this machine's clock says",
    () => {
      const outcome = describeCancelOutcome(LIVE, "period_end");
      expect(outcome).toEqual({
        text:
          "It stays active until 2026-12-01T00:00:00Z, the end of the paid period, then ends. The player is not " +
          "charged again.",
        code: null,
        accessUntil: "2026-12-01T00:00:00Z",
      });
      expect(outcome.text).not.toMatch(/immediately|NO_PAID_PERIOD/);
    },
  );

  it(
    "at period end, with nothing paid or the paid window " +
      "elapsed: ends immediately, said in words, code as a detail",
    () => {
      const nothingPaid = describeCancelOutcome({ ...LIVE, paid_through: null }, "period_end");
      expect(nothingPaid).toMatchObject({ code: "NO_PAID_PERIOD", accessUntil: null });
      expect(nothingPaid.text).toBe(
        "Nothing has been paid yet, so it ends immediately, not at a period end. The player is not charged.",
      );
      // In dunning the window moved on without a payment: paid_through is the start of the current window.
      const elapsed = describeCancelOutcome({ ...LIVE, paid_through: "2026-11-01T00:00:00Z" }, "period_end");
      expect(elapsed).toMatchObject({ code: "NO_PAID_PERIOD" });
      expect(elapsed.text).toMatch(
        /^The paid period already ended \(paid through 2026-11-01T00:00:00Z\), so it ends immediately/,
      );
      expect(elapsed.text).not.toContain("NO_PAID_PERIOD");
      // In dunning the service shows the last paid window as current and retries after paid_through: the paid period
      // is over, though paid_through is after the current window's start.
      const dunning = { ...LIVE, status: "past_due", next_charge_at: "2026-12-04T00:00:00Z" };
      expect(describeCancelOutcome(dunning, "period_end")).toMatchObject({ code: "NO_PAID_PERIOD", accessUntil: null });
      expect(describeCancelOutcome(dunning, "now").text).toBe(
        "It ends now and access ends now. The player is not charged again.",
      );
      // The renewal due at paid_through, not yet tried: the paid period runs.
      expect(paidPeriodRunning({ ...LIVE, next_charge_at: LIVE.paid_through })).toBe(true);
    },
  );

  it("now: ends now, with access until paid_through when a paid period runs", () => {
    expect(describeCancelOutcome(LIVE, "now", (iso) => iso.slice(0, 10))).toMatchObject({
      text:
        "It ends now and is never charged again; the player keeps access until 2026-12-01, the end of what was " +
        "paid.",
      accessUntil: "2026-12-01T00:00:00Z",
    });
    expect(describeCancelOutcome({ ...LIVE, paid_through: null }, "now")).toMatchObject({
      text: "It ends now and access ends now. The player is not charged again.",
      accessUntil: null,
    });
  });

  it("a canceled or expired subscription: nothing changes", () => {
    expect(describeCancelOutcome({ ...LIVE, status: "canceled" }, "period_end")).toMatchObject({
      code: "ALREADY_CANCELED",
    });
  });

  it("reads the service's timestamps in any ISO form", () => {
    expect(
      paidPeriodRunning({ paid_through: "2026-12-01 00:00:00+00:00", current_period_start: "2026-11-01T00:00:00Z" }),
    ).toBe(true);
    expect(
      paidPeriodRunning({ paid_through: "2026-10-31T23:00:00-01:00", current_period_start: "2026-11-01T00:00:00Z" }),
    ).toBe(false);
  });
});

describe("describeNextCharge", () => {
  it("shows no next charge once the subscription cancels at period end or has ended", () => {
    const next = "2026-12-01T00:00:00Z";
    expect(describeNextCharge({ ...LIVE, next_charge_at: next })).toEqual({
      label: "Next charge",
      at: next,
      note: null,
    });
    expect(describeNextCharge({ ...LIVE, cancel_at_period_end: true, next_charge_at: next })).toEqual({
      label: "Next charge",
      at: null,
      note: "None: it ends at the end of the paid period.",
    });
    expect(describeNextCharge({ ...LIVE, status: "canceled", next_charge_at: null })).toEqual({
      label: "Next charge",
      at: null,
      note: "None: the subscription has ended.",
    });
  });

  it("names next_charge_at for what it is: a challenge's deadline, a failed renewal's retry", () => {
    const next = "2026-12-01T00:00:00Z";
    expect(describeNextCharge({ ...LIVE, status: "awaiting_authentication", next_charge_at: next })).toEqual({
      label: "Authentication deadline",
      at: next,
      note: null,
    });
    expect(describeNextCharge({ ...LIVE, status: "past_due", next_charge_at: next })).toMatchObject({
      label: "Charge retried at",
      at: next,
    });
  });
});
