/**
 * Response bodies shaped as ../shared/spec/service-api.md describes them, for unit tests of the client and of code
 * that consumes its types. Each builder returns a fresh object so a test may mutate it.
 */

export const ATTRIBUTION_NOTICE = {
  settled_by_invo: false,
  invo_has_paid_no_recipient: true,
  document_type: "attribution_report",
  not_a_remittance_advice: true,
  payer: "partner",
  statement: "Attribution figures only. The service has paid no recipient; the partner pays its own recipients.",
};

export function subscriptionBody() {
  return {
    subscription_id: "SUB_1767225600_ab12cd34",
    game_id: "game_42",
    player_id: 1001,
    client_request_id: "create-7d1c",
    status: "active",
    amount_usd: "9.99",
    pending_amount_usd: null,
    interval: "month",
    interval_count: 1,
    item_id: "vip_monthly",
    item_name: "VIP Monthly",
    current_period_start: "2026-03-01T00:00:00Z",
    current_period_end: "2026-04-01T00:00:00Z",
    period_seq: 3,
    next_charge_at: "2026-04-01T00:00:00Z",
    cancel_at_period_end: false,
    trial_end: null,
    canceled_at: null,
    ended_at: null,
    wallet_only: false,
    has_payment_method: true,
    funding_rail: "card",
    pcstore_agreement_status: null,
    metadata: { campaign: "spring" },
    consent: { a: null, b: null, c: null, d: null, e: null, f: null },
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-03-01T00:00:05Z",
    revenue_share: { recipient_player_id: 2002, percent: "20.00", settled_by_invo: false },
    paid_through: "2026-04-01T00:00:00Z",
  };
}

export function savedCardBody() {
  return {
    id: 77,
    last_four: "4242",
    brand: "visa",
    exp_month: 12,
    exp_year: 2030,
    created_at: "2026-01-01T00:00:00Z",
  };
}

export function refundReceiptBody() {
  return {
    status: "refunded",
    idempotent_replay: false,
    refund_key: "rfk_91a",
    client_request_id: "refund-0b6f",
    subscription_id: "SUB_1767225600_ab12cd34",
    period_seq: 3,
    transaction_id: "txn_r_551",
    refunded_amount_usd: "3.33",
    total_refunded_amount_usd: "3.33",
    remaining_refundable_usd: "6.66",
    is_full_refund: false,
    funding_shape: "card",
    balance_delta_coins: "33.30",
    card_refunded_usd: "0.00",
    processor_refund_reference: null,
    processor_refund_adopted: false,
    invo_fee_retained: true,
    partner_revenue_reversed_usd: "3.00",
    partner_revenue_reversal_mode: "prorata",
    reason: "customer asked",
    refunded_at: "2026-03-12T09:30:00Z",
    new_balance: "133.30",
    revenue_share_attribution: {
      recipient_player_id: 2002,
      percent: "20.00",
      original_attributed_amount_usd: "1.80",
      refunded_attributed_amount_usd: "0.60",
      net_attributed_amount_usd: "1.20",
      settled_by_invo: false,
    },
    card_fee_charged_to_partner_usd: "0.33",
  };
}

export function renewalLineBody() {
  return {
    period_id: 9001,
    subscription_id: "SUB_1767225600_ab12cd34",
    period_seq: 3,
    item_id: "vip_monthly",
    item_name: "VIP Monthly",
    status: "paid",
    period_start: "2026-03-01T00:00:00Z",
    period_end: "2026-04-01T00:00:00Z",
    paid_at: "2026-03-01T00:00:04Z",
    amount_usd: "9.99",
    invo_fee_usd: "1.00",
    partner_revenue_usd: "8.99",
    partner_revenue_settled_usd: "8.99",
    partner_revenue_reversed_usd: "0.00",
    partner_leg_reversed: false,
    funding: {
      amount_coins: "99.90",
      balance_applied_coins: "0.00",
      card_charged_usd: "9.99",
      rail: "card",
      pcstore_charged_usd: "0.00",
    },
    refund: { refunded_amount_usd: "0.00", refunded_at: null },
    transaction_id: "txn_551",
    mint_order_id: "ord_551",
    attribution: {
      recipient_player_id: 2002,
      percent_at_renewal: "20.00",
      base_usd: "8.99",
      attributed_amount_usd: "1.80",
      settled_by_invo: false,
      recipient: {
        player_id: 2002,
        resolved: true,
        player_email: "rec@example.com",
        player_name: "Rec",
        identity_id: "idn_2",
      },
    },
    attribution_unavailable_reason: null,
    settled_by_invo: false,
    reconciliation: {
      checked: true,
      expected_base_usd: "8.99",
      recorded_base_usd: "8.99",
      base_matches_settled_fee: true,
    },
  };
}

export function refundEventBody() {
  return {
    refunded_at: "2026-03-12T09:30:00Z",
    refunded_amount_usd: "3.33",
    cumulative_refunded_before_usd: "0.00",
    cumulative_refunded_after_usd: "3.33",
    reversed_attributed_usd: "0.60",
    partner_revenue_reversed_usd: "3.00",
    partner_revenue_reversal_basis: "clawback",
    is_full_refund: false,
    settled_by_invo: false,
  };
}

export function reversalBody() {
  return {
    period_id: 9001,
    subscription_id: "SUB_1767225600_ab12cd34",
    period_seq: 3,
    status: "paid",
    paid_at: "2026-03-01T00:00:04Z",
    settled_in_this_window: true,
    amount_usd: "9.99",
    originally_attributed_usd: "1.80",
    refunded_to_date_usd: "3.33",
    latest_refund_at: "2026-03-12T09:30:00Z",
    reversed_attributed_usd: "0.60",
    partner_revenue_reversed_usd: "3.00",
    refund_events: [refundEventBody()],
    reversal_basis: "refund_receipts",
    nets_to_zero_in_window: false,
    note: "Partial refund; attribution reduced pro rata.",
  };
}

export function totalsBody() {
  return {
    renewals_settled: 1,
    settled_gross_usd: "9.99",
    invo_fee_usd: "1.00",
    partner_revenue_settled_usd: "8.99",
    partner_revenue_reversed_usd: "3.00",
    partner_revenue_usd: "5.99",
    renewals_with_attribution: 1,
    renewals_without_attribution: 0,
    unattributed_reasons: {
      no_revenue_share_configured: 0,
      spend_order_not_found: 0,
      attribution_not_recorded: 0,
      attribution_malformed: 0,
    },
    gross_attributed_usd: "1.80",
    reversed_attributed_usd: "0.60",
    net_attributed_usd: "1.20",
    renewals_settled_then_fully_reversed: 0,
    refund_events_in_window: 1,
    reversals_without_receipts: 0,
    recipient_count: 1,
    settled_by_invo: false,
  };
}

export function attributionReportBody() {
  return {
    status: "success",
    attribution_notice: { ...ATTRIBUTION_NOTICE },
    report: {
      type: "revenue_share_attribution",
      game_id: "game_42",
      generated_at: "2026-04-02T08:00:00Z",
      window: { start: "2026-03-01T00:00:00Z", end: "2026-04-01T00:00:00Z", end_exclusive: true },
      filters: { recipient_player_id: null, subscription_id: null },
      derivation: { gross: "Sum of attributed_amount_usd of renewals settled in the window." },
      known_limits: { inline_evidence_lines: 500 },
    },
    totals: totalsBody(),
    recipients: [
      {
        recipient: {
          player_id: 2002,
          resolved: true,
          player_email: "rec@example.com",
          player_name: "Rec",
          identity_id: "idn_2",
        },
        renewal_count: 1,
        subscription_count: 1,
        gross_attributed_usd: "1.80",
        reversed_attributed_usd: "0.60",
        net_attributed_usd: "1.20",
        first_paid_at: "2026-03-01T00:00:04Z",
        last_paid_at: "2026-03-01T00:00:04Z",
        settled_by_invo: false,
        periods: [renewalLineBody()],
        periods_truncated: false,
        reversals: [reversalBody()],
        reversal_count: 1,
        reversals_truncated: false,
      },
    ],
    pagination: { total_count: 1, limit: 50, offset: 0, has_more: false },
  };
}

export function reportSubscriptionBody() {
  return {
    subscription_id: "SUB_1767225600_ab12cd34",
    status: "active",
    item_id: "vip_monthly",
    item_name: "VIP Monthly",
    current_amount_usd: "9.99",
    interval: "month",
    interval_count: 1,
    created_at: "2026-01-01T00:00:00Z",
  };
}

export function currentRevenueShareBody() {
  return {
    recipient_player_id: 2002,
    percent: "20.00",
    applies_to: "future_renewals_only",
    is_payout_basis: false,
    settled_by_invo: false,
    note: "The rate in force at each renewal is on its line.",
    updated_at: "2026-01-01T00:00:00Z",
  };
}

export function subscriptionAttributionBody() {
  const neverPaid = {
    ...renewalLineBody(),
    period_id: 9002,
    period_seq: 4,
    status: "failed",
    period_start: "2026-04-01T00:00:00Z",
    period_end: "2026-05-01T00:00:00Z",
    paid_at: null,
    invo_fee_usd: null,
    partner_revenue_usd: null,
    partner_revenue_settled_usd: null,
    partner_revenue_reversed_usd: null,
    funding: null,
    refund: null,
    transaction_id: null,
    mint_order_id: null,
    attribution: null,
    attribution_unavailable_reason: null,
    reconciliation: null,
  };
  return {
    status: "success",
    attribution_notice: { ...ATTRIBUTION_NOTICE },
    subscription: reportSubscriptionBody(),
    current_revenue_share: currentRevenueShareBody(),
    lifetime_totals: { ...totalsBody(), recipient_player_ids: [2002] },
    periods: [neverPaid, renewalLineBody()],
    pagination: { total_count: 2, limit: 50, offset: 0, has_more: false },
  };
}

export function periodReportBody() {
  return {
    status: "success",
    attribution_notice: { ...ATTRIBUTION_NOTICE },
    subscription: reportSubscriptionBody(),
    period: renewalLineBody(),
    fee_legs: {
      invo_fee_usd: "1.00",
      invo_fee_percent: "10.00",
      partner_revenue_usd: "5.99",
      partner_revenue_settled_usd: "8.99",
      partner_revenue_reversed_usd: "3.00",
      partner_revenue_percent: "90.00",
      partner_leg_reversed: false,
      pass_through_fees_usd: "0.00",
      chargeback_fees_usd: "0.00",
      disputed_amount_held_usd: "0.00",
      card_fee_charged_to_partner_usd: "0.33",
      partner_revenue_after_fees_usd: "5.66",
      source: "settlement_snapshot",
      note: null,
    },
    refunds: {
      refund_count: 1,
      refunded_to_date_usd: "3.33",
      latest_refund_at: "2026-03-12T09:30:00Z",
      basis: "refund_receipts",
      events: [{ ...refundEventBody(), refund_transaction_id: "txn_r_551" }],
    },
    charge: { attempts_for_period: 1, paid_attempt_no: 1, paid_attempt_at: "2026-03-01T00:00:04Z", outcome: "paid" },
    current_revenue_share: currentRevenueShareBody(),
  };
}

export function playerBalanceBody() {
  return {
    player: {
      player_id: 1001,
      player_name: "Jane",
      player_email: "jane@example.com",
      identity_id: "idn_1",
      date_joined: "2025-06-01T10:00:00Z",
    },
    balances: [
      {
        currency_id: 1,
        currency_name: "Gems",
        available_balance: "-12.50",
        reserved_balance: "0.00",
        total_balance: "-12.50",
      },
    ],
    summary: { total_value: "-12.50", currency_count: 1, has_funds: false },
    last_updated: "2026-03-12T09:30:01Z",
  };
}
