import { withoutNul } from "@/core/characters";
import type { AttributionRecipient, RenewalLine } from "@/lib/service/schemas";
import { formatInstant, parseServiceInstant } from "@/lib/time";
import type { FetchedWindow } from "./fetch";
import type { AssembledWindow, LineFacts, RecipientWith } from "./merge";

/**
 * A fetched window as the rows of the published tables (column name -> JSON value). Pure, so drift can compare the
 * rows about to be published with the rows of the previous version read back from the database.
 */

export type Row = Record<string, string | number | boolean | null | Record<string, unknown>>;

export type SnapshotRows = {
  recipients: Row[];
  lines: Row[];
  reversals: Row[];
  events: Row[];
};

export function emptyRows(): SnapshotRows {
  return { recipients: [], lines: [], reversals: [], events: [] };
}

/** Rows without their lines: a version's lines are compared in the database (lib/snapshots/store.ts). */
export function withoutLines(rows: SnapshotRows): SnapshotRows {
  return { ...rows, lines: [] };
}

/**
 * Already in the normal form and certainly an instant parseServiceInstant reads as it is (years from 1000; days up to
 * 28 exist in every month): most service timestamps, tens of thousands per snapshot, skip the general parse. Anything
 * else, including every instant this cannot vouch for, takes the general path.
 */
const NORMAL_INSTANT = /^[1-9]\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$/;

/**
 * Service timestamps normalised to UTC ISO, the form the database returns them in, to the millisecond (finer digits
 * dropped, as parseServiceInstant says).
 */
function instant(text: string | null): string | null {
  if (text === null) return null;
  if (NORMAL_INSTANT.test(text)) return text;
  const ms = parseServiceInstant(text);
  if (ms === null) throw new Error(`not a timestamp: ${text}`);
  return formatInstant(ms);
}

/** Every row of a window read with its lines. */
export function buildRows(window: AssembledWindow): SnapshotRows {
  return buildRecipientRows(window.recipients, 1);
}

/** Rows of some recipients, their lines included; `firstRank` is the service-order position of the first one. */
export function buildRecipientRows(recipients: readonly AttributionRecipient[], firstRank: number): SnapshotRows {
  return { ...buildRecipientRowsWithoutLines(recipients, firstRank), lines: buildLineRows(recipients) };
}

/**
 * Rows of some recipients (1-based `firstRank` as above) with their reversals and refund events, but not their lines:
 * a window read in parts writes those part by part (buildLineRows), and keeps only their facts.
 *
 * Here and in a line's row, text the desk only shows and keeps (a player's name, email or identity, an item's name, a
 * note) is stored without NULs (`withoutNul`): stored as sent, one recipient's name would fail every snapshot of its
 * window for good, and nobody in it could be paid. Done on the rows rather than in the answer's schema, where a
 * transform made parsing a page a third slower.
 */
export function buildRecipientRowsWithoutLines(
  recipients: readonly RecipientWith<LineFacts>[],
  firstRank: number,
): SnapshotRows {
  const rows: SnapshotRows = { recipients: [], lines: [], reversals: [], events: [] };
  recipients.forEach((r, index) => {
    const id = r.recipient.player_id;
    rows.recipients.push({
      recipient_player_id: id,
      service_rank: firstRank + index,
      resolved: r.recipient.resolved,
      player_email: withoutNul(r.recipient.player_email),
      player_name: withoutNul(r.recipient.player_name),
      identity_id: withoutNul(r.recipient.identity_id),
      renewal_count: r.renewal_count,
      subscription_count: r.subscription_count,
      reversal_count: r.reversal_count,
      gross_attributed_usd: r.gross_attributed_usd,
      reversed_attributed_usd: r.reversed_attributed_usd,
      net_attributed_usd: r.net_attributed_usd,
      first_paid_at: instant(r.first_paid_at),
      last_paid_at: instant(r.last_paid_at),
    });
    for (const reversal of r.reversals) {
      rows.reversals.push({
        period_id: reversal.period_id,
        recipient_player_id: id,
        subscription_id: reversal.subscription_id,
        period_seq: reversal.period_seq,
        status: reversal.status,
        paid_at: instant(reversal.paid_at),
        settled_in_this_window: reversal.settled_in_this_window,
        amount_usd: reversal.amount_usd,
        originally_attributed_usd: reversal.originally_attributed_usd,
        refunded_to_date_usd: reversal.refunded_to_date_usd,
        latest_refund_at: instant(reversal.latest_refund_at),
        reversed_attributed_usd: reversal.reversed_attributed_usd,
        partner_revenue_reversed_usd: reversal.partner_revenue_reversed_usd,
        reversal_basis: reversal.reversal_basis,
        nets_to_zero_in_window: reversal.nets_to_zero_in_window,
        note: withoutNul(reversal.note ?? null),
        event_count: reversal.refund_events.length,
      });
      reversal.refund_events.forEach((event, seq) => {
        rows.events.push({
          period_id: reversal.period_id,
          seq: seq + 1,
          refunded_at: instant(event.refunded_at),
          refunded_amount_usd: event.refunded_amount_usd,
          cumulative_refunded_before_usd: event.cumulative_refunded_before_usd,
          cumulative_refunded_after_usd: event.cumulative_refunded_after_usd,
          reversed_attributed_usd: event.reversed_attributed_usd,
          partner_revenue_reversed_usd: event.partner_revenue_reversed_usd,
          partner_revenue_reversal_basis: event.partner_revenue_reversal_basis,
          is_full_refund: event.is_full_refund,
        });
      });
    }
  });
  return rows;
}

function lineRow(line: RenewalLine, recipientPlayerId: number): Row {
  return {
    period_id: line.period_id,
    recipient_player_id: recipientPlayerId,
    subscription_id: line.subscription_id,
    period_seq: line.period_seq,
    item_id: line.item_id,
    item_name: withoutNul(line.item_name),
    status: line.status,
    period_start: instant(line.period_start),
    period_end: instant(line.period_end),
    paid_at: instant(line.paid_at),
    amount_usd: line.amount_usd,
    invo_fee_usd: line.invo_fee_usd,
    partner_revenue_usd: line.partner_revenue_usd,
    partner_revenue_settled_usd: line.partner_revenue_settled_usd,
    partner_revenue_reversed_usd: line.partner_revenue_reversed_usd,
    partner_leg_reversed: line.partner_leg_reversed,
    percent_at_renewal: line.attribution?.percent_at_renewal ?? null,
    base_usd: line.attribution?.base_usd ?? null,
    attributed_amount_usd: line.attribution?.attributed_amount_usd ?? null,
    attribution_unavailable_reason: line.attribution_unavailable_reason,
    transaction_id: line.transaction_id,
    mint_order_id: line.mint_order_id,
    funding: line.funding,
    refund: line.refund,
    reconciliation: line.reconciliation,
  };
}

/** The renewal lines of some recipients, as rows. */
export function buildLineRows(recipients: readonly AttributionRecipient[]): Row[] {
  const rows: Row[] = [];
  for (const r of recipients) for (const line of r.periods) rows.push(lineRow(line, r.recipient.player_id));
  return rows;
}

/** The totals of a fetched window as snapshot columns. */
export function totalsColumns(fetched: FetchedWindow) {
  const t = fetched.totals;
  return {
    renewals_settled: t.renewals_settled,
    settled_gross_usd: t.settled_gross_usd,
    invo_fee_usd: t.invo_fee_usd,
    partner_revenue_settled_usd: t.partner_revenue_settled_usd,
    partner_revenue_reversed_usd: t.partner_revenue_reversed_usd,
    partner_revenue_usd: t.partner_revenue_usd,
    renewals_with_attribution: t.renewals_with_attribution,
    renewals_without_attribution: t.renewals_without_attribution,
    unattributed_reasons: t.unattributed_reasons,
    gross_attributed_usd: t.gross_attributed_usd,
    reversed_attributed_usd: t.reversed_attributed_usd,
    net_attributed_usd: t.net_attributed_usd,
    renewals_settled_then_fully_reversed: t.renewals_settled_then_fully_reversed,
    refund_events_in_window: t.refund_events_in_window,
    reversals_without_receipts: t.reversals_without_receipts,
    recipient_count: t.recipient_count,
  };
}
export type TotalsColumns = ReturnType<typeof totalsColumns>;
