import { describe, expect, it } from "vitest";
import {
  attributionReportBody,
  periodReportBody,
  playerBalanceBody,
  refundReceiptBody,
  savedCardBody,
  subscriptionAttributionBody,
  subscriptionBody,
} from "./__fixtures__/bodies";
import {
  attributionReportSchema,
  cancelSubscriptionResponseSchema,
  changeAmountResponseSchema,
  changePaymentMethodResponseSchema,
  formatIssues,
  getSubscriptionResponseSchema,
  listPlayerSubscriptionsResponseSchema,
  periodReportSchema,
  playerBalanceSchema,
  playerCardsResponseSchema,
  refundAlreadyProcessedSchema,
  refundReceiptSchema,
  subscriptionAttributionSchema,
} from "./schemas";

describe("subscription schemas", () => {
  it("parses GET subscription with the include_player block and drops unknown fields", () => {
    const body = {
      status: "success",
      subscription: { ...subscriptionBody(), brand_new_field: "ignored" },
      player: { player_id: 1001, player_email: "jane@example.com" },
      server_version: "9.9",
    };
    const parsed = getSubscriptionResponseSchema.parse(body);
    expect(parsed.subscription.amount_usd).toBe("9.99");
    expect(parsed.subscription.revenue_share?.percent).toBe("20.00");
    expect(parsed.player).toEqual({ player_id: 1001, player_email: "jane@example.com" });
    expect(parsed.subscription).not.toHaveProperty("brand_new_field");
    expect(parsed).not.toHaveProperty("server_version");
  });

  it("accepts a pcstore subscription with null revenue share, metadata and paid_through, and an unseen status", () => {
    const sub = {
      ...subscriptionBody(),
      status: "pending_pcstore_authorization",
      funding_rail: "pcstore",
      pcstore_agreement_status: "suspended",
      revenue_share: null,
      metadata: null,
      paid_through: null,
      next_charge_at: null,
    };
    const parsed = getSubscriptionResponseSchema.parse({ status: "success", subscription: sub }).subscription;
    expect([parsed.status, parsed.pcstore_agreement_status]).toEqual(["pending_pcstore_authorization", "suspended"]);
  });

  it("reads a numeric percent as decimal text", () => {
    const sub = {
      ...subscriptionBody(),
      revenue_share: { recipient_player_id: 2002, percent: 12.5, settled_by_invo: false },
    };
    expect(
      getSubscriptionResponseSchema.parse({ status: "success", subscription: sub }).subscription.revenue_share?.percent,
    ).toBe("12.5");
  });

  it("refuses amounts that are not decimal strings and reports only paths", () => {
    const result = getSubscriptionResponseSchema.safeParse({
      status: "success",
      subscription: { ...subscriptionBody(), amount_usd: 9.99 },
    });
    expect(result.success).toBe(false);
    if (!result.success) expect(formatIssues(result.error)).toEqual(["subscription.amount_usd: invalid_type"]);
  });

  it("refuses settled_by_invo true on a revenue share", () => {
    const sub = {
      ...subscriptionBody(),
      revenue_share: { recipient_player_id: 1, percent: "5", settled_by_invo: true },
    };
    expect(getSubscriptionResponseSchema.safeParse({ status: "success", subscription: sub }).success).toBe(false);
  });

  it("parses a list page with pagination", () => {
    const parsed = listPlayerSubscriptionsResponseSchema.parse({
      status: "success",
      player_email: "jane@example.com",
      subscriptions: [subscriptionBody()],
      pagination: { total_count: 51, limit: 50, offset: 0, has_more: true },
    });
    expect(parsed.pagination.has_more).toBe(true);
    expect(parsed.subscriptions).toHaveLength(1);
  });

  it("parses both cancel answers: the change, and already canceled with final_status only", () => {
    const changed = cancelSubscriptionResponseSchema.parse({
      status: "success",
      already_canceled: false,
      cancel_at_period_end: false,
      effective_at: "2026-03-12T10:00:00Z",
      current_period_end: "2026-04-01T00:00:00Z",
      access_until: "2026-04-01T00:00:00Z",
      paid_through: "2026-04-01T00:00:00Z",
      subscription: { ...subscriptionBody(), status: "canceled" },
    });
    expect(changed.already_canceled).toBe(false);
    if (!changed.already_canceled) expect(changed.access_until).toBe("2026-04-01T00:00:00Z");

    const downgrade = cancelSubscriptionResponseSchema.parse({
      status: "success",
      already_canceled: false,
      cancel_at_period_end: true,
      effective_at: "2026-03-12T10:00:00Z",
      current_period_end: "2026-04-01T00:00:00Z",
      access_until: "2026-03-12T10:00:00Z",
      paid_through: null,
      subscription: subscriptionBody(),
      terminated_immediately: true,
      downgrade_reason: "NO_PAID_PERIOD",
      message: "Nothing paid; ended now.",
      pcstore_agreement_status: "canceled",
      pcstore_agreement_canceled: true,
    });
    if (!downgrade.already_canceled) expect(downgrade.downgrade_reason).toBe("NO_PAID_PERIOD");

    const already = cancelSubscriptionResponseSchema.parse({
      status: "success",
      already_canceled: true,
      final_status: "expired",
    });
    expect(already.already_canceled && already.final_status).toBe("expired");
  });

  it("parses the amount change with a staged price that will never apply", () => {
    const parsed = changeAmountResponseSchema.parse({
      status: "success",
      old_amount_usd: "9.99",
      new_amount_usd: "600.00",
      pending_amount_usd: "600.00",
      change_queued: true,
      applies_from: "2026-04-01T00:00:00Z",
      applies_from_period_seq: 4,
      paid_through: "2026-04-01T00:00:00Z",
      current_period_end: "2026-04-01T00:00:00Z",
      prorated: false,
      subscription: { ...subscriptionBody(), pending_amount_usd: "600.00" },
    });
    expect(parsed.pending_amount_usd).toBe("600.00");
    expect(
      changeAmountResponseSchema.safeParse({ ...parsed, applies_from: null, applies_from_period_seq: null }).success,
    ).toBe(true);
  });

  it("parses the payment-method change, with or without a card", () => {
    const body = {
      status: "success",
      replaced: true,
      wallet_only: false,
      card: savedCardBody(),
      subscription: subscriptionBody(),
    };
    expect(changePaymentMethodResponseSchema.parse(body).card?.last_four).toBe("4242");
    expect(changePaymentMethodResponseSchema.parse({ ...body, card: null, wallet_only: true }).card).toBeNull();
  });
});

describe("refund schemas", () => {
  it("parses a full receipt including attribution and the card fee", () => {
    const receipt = refundReceiptSchema.parse({ ...refundReceiptBody(), future_field: 1 });
    expect(receipt.revenue_share_attribution?.net_attributed_amount_usd).toBe("1.20");
    expect(receipt.card_fee_charged_to_partner_usd).toBe("0.33");
    expect(receipt.balance_delta_coins).toBe("33.30");
  });

  it("accepts a negative coin delta, a null attribution, and a receipt stored before 2026-09-28", () => {
    const body: Record<string, unknown> = {
      ...refundReceiptBody(),
      is_full_refund: true,
      funding_shape: "mixed",
      balance_delta_coins: "-40.00",
      revenue_share_attribution: null,
      idempotent_replay: true,
    };
    delete body.card_fee_charged_to_partner_usd;
    const receipt = refundReceiptSchema.parse(body);
    expect(receipt.balance_delta_coins).toBe("-40.00");
    expect(receipt.card_fee_charged_to_partner_usd).toBeUndefined();
  });

  it("keeps a funding shape or reversal mode the spec does not list as written, and refuses an empty one", () => {
    // Shown only: a refund made must not read as an unreadable answer because the service named a new shape.
    const later = refundReceiptSchema.parse({
      ...refundReceiptBody(),
      funding_shape: "gift_card",
      partner_revenue_reversal_mode: "tiered",
    });
    expect([later.funding_shape, later.partner_revenue_reversal_mode]).toEqual(["gift_card", "tiered"]);
    expect(refundReceiptSchema.safeParse({ ...refundReceiptBody(), funding_shape: "" }).success).toBe(false);
    expect(refundReceiptSchema.safeParse({ ...refundReceiptBody(), funding_shape: 3 }).success).toBe(false);
  });

  it("parses the reduced already-processed replay body", () => {
    const parsed = refundAlreadyProcessedSchema.parse({
      transaction_id: "txn_r_551",
      note: "Refund already processed; receipt unavailable.",
      extra: true,
    });
    expect(parsed.transaction_id).toBe("txn_r_551");
  });
});

describe("reporting schemas", () => {
  it("parses an attribution report page", () => {
    const parsed = attributionReportSchema.parse(attributionReportBody());
    expect(parsed.totals.net_attributed_usd).toBe("1.20");
    expect(parsed.totals.unattributed_reasons.no_revenue_share_configured).toBe(0);
    const recipient = parsed.recipients[0];
    expect(recipient?.periods[0]?.attribution?.attributed_amount_usd).toBe("1.80");
    expect(recipient?.reversals[0]?.refund_events[0]?.partner_revenue_reversal_basis).toBe("clawback");
    expect(parsed.attribution_notice.payer).toBe("partner");
  });

  it("keeps a new unattributed reason and tolerates an unresolved recipient and a period_row reversal", () => {
    const body = attributionReportBody();
    (body.totals.unattributed_reasons as Record<string, number>).brand_new_reason = 2;
    const recipient = body.recipients[0]!;
    recipient.recipient = {
      player_id: 2002,
      resolved: false,
      player_email: null,
      player_name: null,
      identity_id: null,
    } as never;
    recipient.first_paid_at = null as never;
    recipient.last_paid_at = null as never;
    recipient.periods = [];
    recipient.reversals = [
      { ...recipient.reversals[0]!, reversal_basis: "period_row", refund_events: [], note: null as never },
    ];
    const parsed = attributionReportSchema.parse(body);
    expect(parsed.totals.unattributed_reasons.brand_new_reason).toBe(2);
    expect(parsed.recipients[0]?.recipient.resolved).toBe(false);
  });

  it("refuses a report whose notice says the service settled", () => {
    const body = attributionReportBody();
    (body.attribution_notice as Record<string, unknown>).settled_by_invo = true;
    const result = attributionReportSchema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success)
      expect(formatIssues(result.error)).toContain("attribution_notice.settled_by_invo: invalid_value");
  });

  it("names the path of a broken renewal line without quoting values", () => {
    const body = attributionReportBody();
    (body.recipients[0]!.periods[0] as Record<string, unknown>).attributed_amount_usd = "n/a";
    (body.recipients[0]!.periods[0]!.attribution as Record<string, unknown>).base_usd = "rec@example.com";
    const result = attributionReportSchema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success) {
      const issues = formatIssues(result.error);
      expect(issues).toEqual(["recipients.0.periods.0.attribution.base_usd: invalid_format"]);
      expect(issues.join()).not.toContain("rec@example.com");
    }
  });

  it("parses per-subscription attribution with a never-paid cycle", () => {
    const parsed = subscriptionAttributionSchema.parse(subscriptionAttributionBody());
    expect(parsed.periods[0]?.paid_at).toBeNull();
    expect(parsed.periods[0]?.attribution).toBeNull();
    expect(parsed.lifetime_totals?.recipient_player_ids).toEqual([2002]);
    const pastCap = subscriptionAttributionSchema.parse({
      ...subscriptionAttributionBody(),
      lifetime_totals: null,
      current_revenue_share: null,
    });
    expect(pastCap.lifetime_totals).toBeNull();
  });

  it("parses a period report with fee legs, refund events and charge", () => {
    const parsed = periodReportSchema.parse(periodReportBody());
    expect(parsed.fee_legs.card_fee_charged_to_partner_usd).toBe("0.33");
    expect(parsed.refunds.events[0]?.refund_transaction_id).toBe("txn_r_551");
    expect(parsed.charge.paid_attempt_no).toBe(1);
  });

  it("keeps a refund event's reversal basis the spec does not list as written, and refuses an empty one", () => {
    const body = periodReportBody();
    const withBasis = (basis: unknown) => ({
      ...body,
      refunds: {
        ...body.refunds,
        events: body.refunds.events.map((e) => ({ ...e, partner_revenue_reversal_basis: basis })),
      },
    });
    const later = periodReportSchema.parse(withBasis("fee_row_netted"));
    expect(later.refunds.events[0]?.partner_revenue_reversal_basis).toBe("fee_row_netted");
    expect(periodReportSchema.safeParse(withBasis("")).success).toBe(false);
    expect(periodReportSchema.safeParse(withBasis(null)).success).toBe(false);
  });

  it("takes a period report's subscription block in any shape (the spec shows none), or none", () => {
    const body: Record<string, unknown> = periodReportBody();
    body.subscription = { subscription_id: "SUB_1767225600_ab12cd34", amount_usd: "9.99", status: "active" };
    expect(periodReportSchema.parse(body).period.subscription_id).toBe("SUB_1767225600_ab12cd34");
    for (const other of ["SUB_1767225600_ab12cd34", [], { subscription_id: null }, null]) {
      body.subscription = other;
      expect(periodReportSchema.parse(body).period.subscription_id).toBe("SUB_1767225600_ab12cd34");
    }
    delete body.subscription;
    expect(periodReportSchema.parse(body).period.item_name).toEqual(expect.any(String));
  });

  it("takes the current revenue share's settled_by_invo as given or absent (the spec gives it no value)", () => {
    const share = subscriptionAttributionBody().current_revenue_share as Record<string, unknown>;
    for (const settled of [undefined, null, false]) {
      const body = { ...subscriptionAttributionBody(), current_revenue_share: { ...share, settled_by_invo: settled } };
      expect(subscriptionAttributionSchema.parse(body).current_revenue_share?.recipient_player_id).toBe(
        share.recipient_player_id,
      );
    }
  });

  it("tolerates fee legs without the card fee (before 2026-09-28) and a negative after-fees figure", () => {
    const body = periodReportBody();
    const legs = body.fee_legs as Record<string, unknown>;
    delete legs.card_fee_charged_to_partner_usd;
    legs.partner_revenue_after_fees_usd = "-15.00";
    expect(periodReportSchema.parse(body).fee_legs.partner_revenue_after_fees_usd).toBe("-15.00");
  });
});

describe("player schemas", () => {
  it("parses a balance that went negative after a refund", () => {
    const parsed = playerBalanceSchema.parse(playerBalanceBody());
    expect(parsed.balances[0]?.available_balance).toBe("-12.50");
  });

  it("parses cards and an empty list", () => {
    expect(playerCardsResponseSchema.parse({ cards: [savedCardBody()] }).cards[0]?.id).toBe(77);
    expect(playerCardsResponseSchema.parse({ status: "success", cards: [] }).cards).toEqual([]);
  });
});
