import { Decimal } from "decimal.js";
import { formatInstant } from "@/lib/time";
import type { Row, SnapshotRows } from "./rows";

/**
 * Field-by-field comparison of two versions of the same window. The spec promises that "a closed window is
 * reproducible" and that "figures are the snapshot recorded at settlement, never recomputed", so between two pulls of
 * a closed window every figure below must be equal; a difference is drift, shown to finance as a red flag.
 *
 * Left out on purpose are the fields the spec calls cumulative or current, which legitimately move after the window
 * closed: a renewal line's status, refund block, partner_revenue_usd / partner_revenue_reversed_usd ("net of
 * reversal") and reconciliation; a reversal's status, refunded_to_date_usd and latest_refund_at ("both cumulative,
 * reference only") and its prose note. A recipient's identity (email, name) may change too: it is recorded, as a
 * notice rather than drift, because it does not change what is owed.
 */

export type DriftEntry = {
  severity: "drift" | "notice";
  entity: "totals" | "recipient" | "line" | "reversal" | "refund_event";
  entityKey: string;
  field: string;
  previous: string | null;
  current: string | null;
};

type Kind = "amount" | "instant" | "plain" | "json";
type FieldSpec = Record<string, Kind>;

export const TOTALS_FIELDS: FieldSpec = {
  renewals_settled: "plain",
  settled_gross_usd: "amount",
  invo_fee_usd: "amount",
  partner_revenue_settled_usd: "amount",
  partner_revenue_reversed_usd: "amount",
  partner_revenue_usd: "amount",
  renewals_with_attribution: "plain",
  renewals_without_attribution: "plain",
  gross_attributed_usd: "amount",
  reversed_attributed_usd: "amount",
  net_attributed_usd: "amount",
  renewals_settled_then_fully_reversed: "plain",
  refund_events_in_window: "plain",
  reversals_without_receipts: "plain",
  recipient_count: "plain",
  unattributed_reasons: "json",
};

const RECIPIENT_FIELDS: FieldSpec = {
  renewal_count: "plain",
  subscription_count: "plain",
  reversal_count: "plain",
  gross_attributed_usd: "amount",
  reversed_attributed_usd: "amount",
  net_attributed_usd: "amount",
  first_paid_at: "instant",
  last_paid_at: "instant",
};

const RECIPIENT_NOTICE_FIELDS: FieldSpec = {
  resolved: "plain",
  player_email: "plain",
  player_name: "plain",
  identity_id: "plain",
};

const LINE_FIELDS: FieldSpec = {
  recipient_player_id: "plain",
  subscription_id: "plain",
  period_seq: "plain",
  item_id: "plain",
  period_start: "instant",
  period_end: "instant",
  paid_at: "instant",
  amount_usd: "amount",
  invo_fee_usd: "amount",
  partner_revenue_settled_usd: "amount",
  percent_at_renewal: "amount",
  base_usd: "amount",
  attributed_amount_usd: "amount",
  attribution_unavailable_reason: "plain",
  transaction_id: "plain",
  mint_order_id: "plain",
  funding: "json",
};

const REVERSAL_FIELDS: FieldSpec = {
  recipient_player_id: "plain",
  subscription_id: "plain",
  period_seq: "plain",
  paid_at: "instant",
  settled_in_this_window: "plain",
  amount_usd: "amount",
  originally_attributed_usd: "amount",
  reversed_attributed_usd: "amount",
  partner_revenue_reversed_usd: "amount",
  reversal_basis: "plain",
  nets_to_zero_in_window: "plain",
  event_count: "plain",
};

const EVENT_FIELDS: FieldSpec = {
  refunded_at: "instant",
  refunded_amount_usd: "amount",
  cumulative_refunded_before_usd: "amount",
  cumulative_refunded_after_usd: "amount",
  reversed_attributed_usd: "amount",
  partner_revenue_reversed_usd: "amount",
  partner_revenue_reversal_basis: "plain",
  is_full_refund: "plain",
};

/** The columns compareVersions reads from each row table, keys included: a version is read back no wider than this. */
export const COMPARED_COLUMNS: Record<keyof SnapshotRows, readonly string[]> = {
  recipients: [...new Set(["recipient_player_id", ...Object.keys(RECIPIENT_FIELDS), ...Object.keys(RECIPIENT_NOTICE_FIELDS)])],
  lines: [...new Set(["period_id", ...Object.keys(LINE_FIELDS)])],
  reversals: [...new Set(["period_id", ...Object.keys(REVERSAL_FIELDS)])],
  events: [...new Set(["period_id", "seq", ...Object.keys(EVENT_FIELDS)])],
};

/** Key-sorted JSON, so {a,b} and {b,a} compare equal. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}

/** One canonical text per value, whether it came from the service (strings) or back from the database (Date, numeric). */
const PLAIN_AMOUNT = /^-?(?:0|[1-9]\d*)\.\d\d$/;

export function normalise(kind: Kind, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    // Fast path for the common "12.30" form of both sides; anything else goes through Decimal.
    case "amount": {
      const text = String(value);
      if (PLAIN_AMOUNT.test(text)) {
        const trimmed = text.replace(/\.?0+$/, "");
        return trimmed === "-0" || trimmed === "" ? "0" : trimmed;
      }
      return new Decimal(text).toFixed();
    }
    case "instant":
      // Rows about to be published already hold formatInstant text; the database returns a Date.
      return value instanceof Date ? formatInstant(value) : String(value);
    case "json":
      return stableJson(typeof value === "string" ? JSON.parse(value) : value);
    case "plain":
      return String(value);
  }
}

function compareFields(
  out: DriftEntry[],
  entity: DriftEntry["entity"],
  key: string,
  previous: Row | Record<string, unknown>,
  current: Row | Record<string, unknown>,
  fields: FieldSpec,
  severity: DriftEntry["severity"] = "drift",
): void {
  for (const [field, kind] of Object.entries(fields)) {
    const before = normalise(kind, previous[field]);
    const after = normalise(kind, current[field]);
    if (before !== after) out.push({ severity, entity, entityKey: key, field, previous: before, current: after });
  }
}

function compareSets(
  out: DriftEntry[],
  entity: DriftEntry["entity"],
  previous: readonly Row[],
  current: readonly Row[],
  keyOf: (row: Row) => string,
  fields: FieldSpec,
  noticeFields?: FieldSpec,
): void {
  const before = new Map(previous.map((row) => [keyOf(row), row]));
  const after = new Map(current.map((row) => [keyOf(row), row]));
  for (const [key, row] of after) {
    const old = before.get(key);
    if (!old) {
      out.push({ severity: "drift", entity, entityKey: key, field: "(present)", previous: "absent", current: "present" });
      continue;
    }
    compareFields(out, entity, key, old, row, fields);
    if (noticeFields) compareFields(out, entity, key, old, row, noticeFields, "notice");
  }
  for (const key of before.keys()) {
    if (!after.has(key)) {
      out.push({ severity: "drift", entity, entityKey: key, field: "(present)", previous: "present", current: "absent" });
    }
  }
}

export type ComparableVersion = { totals: Record<string, unknown>; rows: SnapshotRows };

/** Every difference between two versions of one window, totals first. */
export function compareVersions(previous: ComparableVersion, current: ComparableVersion): DriftEntry[] {
  const out: DriftEntry[] = [];
  compareFields(out, "totals", "window", previous.totals, current.totals, TOTALS_FIELDS);
  const id = (row: Row) => String(row.recipient_player_id);
  const period = (row: Row) => String(row.period_id);
  compareSets(out, "recipient", previous.rows.recipients, current.rows.recipients, id, RECIPIENT_FIELDS, RECIPIENT_NOTICE_FIELDS);
  compareSets(out, "line", previous.rows.lines, current.rows.lines, period, LINE_FIELDS);
  compareSets(out, "reversal", previous.rows.reversals, current.rows.reversals, period, REVERSAL_FIELDS);
  compareSets(out, "refund_event", previous.rows.events, current.rows.events, (row) => `${String(row.period_id)}#${String(row.seq)}`, EVENT_FIELDS);
  return out;
}
