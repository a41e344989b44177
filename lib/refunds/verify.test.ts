import { describe, expect, it } from "vitest";
import { periodReportBody } from "@/lib/service/__fixtures__/bodies";
import { periodReportSchema } from "@/lib/service/schemas";
import { comparePeriodWithReview, confirmReplayedRefund, type AttemptParameters } from "./verify";

/** The fixture: a 9.99 card period (SUB_1767225600_ab12cd34, period 3) with one 3.33 refund, transaction txn_r_551. */
// The body is edited as plain JSON, as the service could send it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function report(edit: (body: any) => void = () => {}) {
  const body = periodReportBody();
  edit(body);
  return periodReportSchema.parse(body);
}

const ATTEMPT: AttemptParameters = {
  subscriptionId: "SUB_1767225600_ab12cd34",
  periodSeq: 3,
  amountUsd: "3.33",
  clientRequestId: "pd-refund-1",
  remainingBeforeUsd: "6.66",
  reviewedRefundedToDateUsd: "3.33",
};

describe("comparePeriodWithReview", () => {
  it("passes a period that still shows what was reviewed", () => {
    expect(comparePeriodWithReview(report(), ATTEMPT)).toEqual({ unchanged: true });
    // An attempt stored without the reviewed figure is compared on the remaining amount alone.
    expect(comparePeriodWithReview(report(), { ...ATTEMPT, reviewedRefundedToDateUsd: null })).toEqual({
      unchanged: true,
    });
  });

  it("stops a refund when another one landed since the review, with the new remaining amount", () => {
    const later = report((b) => {
      b.refunds.refunded_to_date_usd = "5.33";
      b.refunds.events.push({
        ...b.refunds.events[0],
        refunded_amount_usd: "2.00",
        refund_transaction_id: "txn_r_552",
      });
    });
    expect(comparePeriodWithReview(later, ATTEMPT)).toEqual({
      unchanged: false,
      refundedToDateUsd: "5.33",
      remainingUsd: "4.66",
      reason: "refunded to date differs",
    });
    expect(comparePeriodWithReview(later, { ...ATTEMPT, reviewedRefundedToDateUsd: null })).toMatchObject({
      unchanged: false,
      remainingUsd: "4.66",
      reason: "remaining refundable differs",
    });
  });

  it("stops a refund when the report is another period's", () => {
    expect(comparePeriodWithReview(report(), { ...ATTEMPT, periodSeq: 2 })).toMatchObject({ unchanged: false });
    expect(comparePeriodWithReview(report(), { ...ATTEMPT, subscriptionId: "SUB_1767225600_zz99zz99" })).toMatchObject({
      unchanged: false,
    });
  });
});

describe("confirmReplayedRefund", () => {
  const replay = {
    transaction_id: "txn_r_552",
    status: "refunded",
    idempotent_replay: true,
    client_request_id: "pd-refund-1",
  };
  // The attempt's own refund, made after the review: 3.33 on top of the 3.33 the period already showed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const withAttemptRefund = (b: any, id: string | null = "txn_r_552") => {
    b.refunds.refunded_to_date_usd = "6.66";
    b.refunds.refund_count = 2;
    b.refunds.events.push({
      ...b.refunds.events[0],
      refunded_at: "2026-03-20T10:00:00Z",
      cumulative_refunded_before_usd: "3.33",
      cumulative_refunded_after_usd: "6.66",
      refund_transaction_id: id,
    });
  };

  it("confirms a lost receipt by the period's refund event with that transaction id and amount", () => {
    expect(confirmReplayedRefund(report(withAttemptRefund), ATTEMPT, replay)).toEqual({
      confirmed: true,
      refundedAt: "2026-03-20T10:00:00Z",
      matchedBy: "transaction_id",
    });
    // Without the reviewed figure, what was refunded before is the period's amount less what was left.
    expect(
      confirmReplayedRefund(report(withAttemptRefund), { ...ATTEMPT, reviewedRefundedToDateUsd: null }, replay),
    ).toMatchObject({ confirmed: true });
  });

  it("refuses a refund the period already showed when the refund was reviewed", () => {
    // txn_r_551 is the 3.33 refunded before the review: same amount, but not this attempt's.
    const earlier = { ...replay, transaction_id: "txn_r_551" };
    const result = confirmReplayedRefund(report(withAttemptRefund), ATTEMPT, earlier);
    expect(result).toEqual({
      confirmed: false,
      reason: "the period's refund txn_r_551 was made before this refund was reviewed (USD 0.00 refunded before it)",
    });
    expect(confirmReplayedRefund(report(), ATTEMPT, earlier)).toMatchObject({ confirmed: false });
  });

  it("refuses a transaction id the period does not list", () => {
    const result = confirmReplayedRefund(report(), ATTEMPT, { ...replay, transaction_id: "txn_elsewhere" });
    expect(result).toMatchObject({ confirmed: false });
    expect(!result.confirmed && result.reason).toContain("no refund with transaction id txn_elsewhere");
    const empty = report((b) => {
      b.refunds = { ...b.refunds, refund_count: 0, refunded_to_date_usd: "0.00", latest_refund_at: null, events: [] };
    });
    expect(confirmReplayedRefund(empty, ATTEMPT, replay)).toMatchObject({
      confirmed: false,
      reason: expect.stringContaining("no refund at all"),
    });
  });

  it("refuses the right transaction id with another amount", () => {
    const result = confirmReplayedRefund(report(withAttemptRefund), { ...ATTEMPT, amountUsd: "2.00" }, replay);
    expect(result).toEqual({ confirmed: false, reason: "the period's refund txn_r_552 is USD 3.33, not USD 2.00" });
  });

  it("refuses an answer naming another request id or subscription", () => {
    const later = report(withAttemptRefund);
    expect(confirmReplayedRefund(later, ATTEMPT, { ...replay, client_request_id: "pd-refund-other" })).toMatchObject({
      confirmed: false,
    });
    expect(
      confirmReplayedRefund(later, ATTEMPT, { ...replay, subscription_id: "SUB_1767225600_zz99zz99" }),
    ).toMatchObject({ confirmed: false });
    expect(confirmReplayedRefund(later, { ...ATTEMPT, periodSeq: 4 }, replay)).toMatchObject({ confirmed: false });
  });

  it("falls back to the amount only for an event without a transaction id made on what was reviewed", () => {
    const withoutIds = report((b) => {
      b.refunds.events[0].refund_transaction_id = null;
      withAttemptRefund(b, null);
    });
    expect(confirmReplayedRefund(withoutIds, ATTEMPT, replay)).toEqual({
      confirmed: true,
      refundedAt: "2026-03-20T10:00:00Z",
      matchedBy: "amount",
    });
    expect(confirmReplayedRefund(withoutIds, { ...ATTEMPT, amountUsd: "3.34" }, replay)).toMatchObject({
      confirmed: false,
    });
    // The same amount refunded before the review is not this refund: nothing came after it.
    const onlyEarlier = report((b) => {
      b.refunds.events[0].refund_transaction_id = null;
    });
    expect(confirmReplayedRefund(onlyEarlier, ATTEMPT, replay)).toMatchObject({ confirmed: false });
    // An event with another id and the same amount is someone else's refund, not this one.
    const otherId = report((b) => withAttemptRefund(b, "txn_r_999"));
    expect(confirmReplayedRefund(otherId, ATTEMPT, replay)).toMatchObject({ confirmed: false });
  });
});
