/**
 * The service's codes on support and audit pages, said in plain words. The code stays on screen as a detail line, so
 * a person talking to the service can still name it.
 */

const REFUND_EVENTS_BASIS: Record<string, string> = {
  refund_receipts: "exact: one row per refund, from the service's receipts",
  period_row: "approximate: the period's refunds reported as one amount at the latest refund",
};

const PARTNER_REVERSAL_BASIS: Record<string, string> = {
  clawback: "Taken back from partner revenue",
  sale_fee_row_reversed: "Sale and fee reversed",
  none: "Nothing reversed",
};

export type PlainWords = { text: string; code: string };

function plain(map: Record<string, string>, code: string): PlainWords {
  return { text: map[code] ?? code.replaceAll("_", " "), code };
}

/** How a period's refund events were built (refunds.basis). */
export function describeRefundEventsBasis(code: string): PlainWords {
  return plain(REFUND_EVENTS_BASIS, code);
}

/** How a refund event reversed partner revenue (partner_revenue_reversal_basis). */
export function describePartnerReversalBasis(code: string): PlainWords {
  return plain(PARTNER_REVERSAL_BASIS, code);
}
