import { describe, expect, it } from "vitest";
import { periodReportBody } from "@/lib/service/__fixtures__/bodies";
import { periodReportSchema } from "@/lib/service/schemas";
import { cardRecordMissing, computeRefundImpact, noMintOrderNote, pcstoreCharged, walletCoveredPeriod } from "./impact";

/**
 * The fixture: a 9.99 card period, 20% to recipient 2002 (1.80 attributed), with a 3.33 partial refund already made.
 */
// The body is edited as plain JSON, as the service could send it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function report(edit: (body: any) => void = () => {}) {
  const body = periodReportBody();
  edit(body);
  return periodReportSchema.parse(body);
}

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("computeRefundImpact", () => {
  it("a partial refund credits coins at 10 per USD and reverses attribution pro rata", () => {
    const impact = computeRefundImpact(report(), { amountUsd: "3.33", nowMs: NOW, recipientAlreadyPaid: false });
    expect(impact).toMatchObject({
      remainingUsd: "6.66",
      amountUsd: "3.33",
      isFull: false,
      refundable: true,
      fundingShape: "card",
      cardRefundUsd: "0.00",
      balanceDeltaCoins: "33.30",
      walletMayGoNegative: false,
      partnerRevenueReversedUsd: "3.00",
      cardFeeChargedToPartnerUsd: "0.33",
      revenueShare: {
        recipientPlayerId: 2002,
        originalAttributedUsd: "1.80",
        reversedBeforeUsd: "0.60",
        attributionLostUsd: "0.60",
        netAfterUsd: "0.60",
      },
      reportingWindow: { month: "2026-11", start: "2026-11-01T00:00:00Z", end: "2026-12-01T00:00:00Z" },
    });
  });

  it(
    "the completing refund returns the card charge, takes back earlier partial coins and reverses exactly what is " +
      "left",
    () => {
      const impact = computeRefundImpact(report(), { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: true });
      expect(impact).toMatchObject({
        amountUsd: "6.66",
        isFull: true,
        cardRefundUsd: "9.99",
        balanceDeltaCoins: "-33.30",
        walletMayGoNegative: true,
        partnerRevenueReversedUsd: "5.99",
        cardFeeChargedToPartnerUsd: "0.67",
        revenueShare: { attributionLostUsd: "1.20", netAfterUsd: "0.00" },
        recipientAlreadyPaid: true,
      });
      expect(impact.effects.join(" ")).toMatch(
        /USD 9.99 goes back to the card.*33.30 coins credited by earlier partial refunds are taken back/,
      );
      // A full refund takes the period's paid time back: said, never "not canceled" alone.
      expect(impact.effects.join(" ")).toContain(
        "no longer counts toward the subscription's paid-through date: the player loses the access it paid for",
      );
      expect(impact.effects.join(" ")).toContain("one already set to end at its period's end then ends sooner");
    },
  );

  it("a card-charged period whose charge record is missing is not refundable: the service refuses it", () => {
    const missing = computeRefundImpact(
      report((b) => {
        b.period.mint_order_id = null;
      }),
      { amountUsd: "1.00", nowMs: NOW, recipientAlreadyPaid: false },
    );
    expect(missing).toMatchObject({ refundable: false, blocker: "card_record_missing" });
    expect(missing.effects[0]).toMatch(/cannot find the record of this period's card charge/);
    expect(cardRecordMissing({ funding: { card_charged_usd: "9.99" }, mint_order_id: null })).toBe(true);
    expect(cardRecordMissing({ funding: { card_charged_usd: "9.99" }, mint_order_id: "ord_1" })).toBe(false);
    // A period the wallet covered has no mint order, and refunds in coins.
    expect(cardRecordMissing({ funding: { card_charged_usd: "0.00" }, mint_order_id: null })).toBe(false);
    expect(cardRecordMissing({ funding: null, mint_order_id: null })).toBe(false);
  });

  it("a period charged through the pcstore is not refundable; a wallet-covered one refunds in coins", () => {
    const pcstore = computeRefundImpact(
      report((b) => {
        b.period.funding = {
          amount_coins: "99.90",
          balance_applied_coins: "0.00",
          card_charged_usd: "0.00",
          rail: "pcstore",
          pcstore_charged_usd: "9.99",
        };
      }),
      { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: false },
    );
    expect(pcstore).toMatchObject({ refundable: false, blocker: "pcstore", rail: "pcstore" });
    // Neither has a mint order (only a card charge makes one): the charged one is not "covered by the wallet".
    const charged = { paid_at: "2026-11-01T00:00:00Z", mint_order_id: null, funding: { pcstore_charged_usd: "9.99" } };
    const covered = { ...charged, funding: { pcstore_charged_usd: "0.00", card_charged_usd: "0.00" } };
    expect([walletCoveredPeriod(charged), walletCoveredPeriod(covered)]).toEqual([false, true]);
    expect(noMintOrderNote(charged)).toBe("none (charged through the pcstore)");
    // On the pcstore rail, a charge not reported is not a wallet-covered period: it may have been charged there.
    const unreported = {
      ...charged,
      funding: { rail: "pcstore", pcstore_charged_usd: null, card_charged_usd: "0.00" },
    };
    expect(pcstoreCharged(unreported)).toBe(true);
    expect(walletCoveredPeriod(unreported)).toBe(false);
    expect(noMintOrderNote(covered)).toBe("none (the wallet covered the period)");

    const wallet = computeRefundImpact(
      report((b) => {
        b.period.funding = {
          amount_coins: "99.90",
          balance_applied_coins: "99.90",
          card_charged_usd: "0.00",
          rail: "pcstore",
          pcstore_charged_usd: "0.00",
        };
        b.refunds = {
          refund_count: 0,
          refunded_to_date_usd: "0.00",
          latest_refund_at: null,
          basis: "refund_receipts",
          events: [],
        };
        b.fee_legs.partner_revenue_reversed_usd = "0.00";
      }),
      { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: false },
    );
    expect(wallet).toMatchObject({
      refundable: true,
      fundingShape: "wallet",
      isFull: true,
      cardRefundUsd: "0.00",
      balanceDeltaCoins: "99.90",
    });
  });

  it("says when there is nothing to refund", () => {
    const never = computeRefundImpact(
      report((b) => {
        b.period.paid_at = null;
      }),
      { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: false },
    );
    expect(never).toMatchObject({ refundable: false, blocker: "never_collected", remainingUsd: "0.00" });
    const done = computeRefundImpact(
      report((b) => {
        b.refunds.refunded_to_date_usd = "9.99";
      }),
      { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: false },
    );
    expect(done).toMatchObject({ refundable: false, blocker: "fully_refunded", remainingUsd: "0.00" });
  });

  it("does not refund a card charge the cardholder disputed, open or lost", () => {
    const base = { amountUsd: null, nowMs: NOW, recipientAlreadyPaid: false };
    // Open: the report shows the amount held for it.
    const held = computeRefundImpact(
      report((b) => {
        b.fee_legs.disputed_amount_held_usd = "9.99";
      }),
      base,
    );
    expect(held).toMatchObject({ refundable: false, blocker: "chargeback", remainingUsd: "6.66" });
    expect(held.effects).toEqual([
      expect.stringMatching(/^The cardholder disputed this period's card charge \(USD 9\.99\)/),
    ]);
    expect(held.effects[0]).toMatch(/a refund now could pay them twice/);
    // Lost: the report no longer holds anything; the desk's record of the dispute says so.
    const lost = computeRefundImpact(report(), { ...base, chargeback: { status: "lost", usdAmount: "9.99" } });
    expect(lost).toMatchObject({ refundable: false, blocker: "chargeback" });
    expect(lost.effects[0]).toMatch(
      /^The cardholder won a dispute of this period's card charge \(USD 9\.99\): .* not refunded on top of it\.$/,
    );
    // Neither: refundable.
    expect(computeRefundImpact(report(), { ...base, chargeback: null })).toMatchObject({
      refundable: true,
      blocker: null,
    });
  });
});
