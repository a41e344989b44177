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

/** Compared columns holding instants: a version read back may give them as formatInstant text instead of a Date. */
export const INSTANT_COLUMNS: ReadonlySet<string> = new Set(
  [RECIPIENT_FIELDS, LINE_FIELDS, REVERSAL_FIELDS, EVENT_FIELDS].flatMap((fields) =>
    Object.entries(fields)
      .filter(([, kind]) => kind === "instant")
      .map(([name]) => name),
  ),
);

/** The columns compareVersions reads from each row table, keys included: a version is read back no wider than this. */
export const COMPARED_COLUMNS: Record<keyof SnapshotRows, readonly string[]> = {
  recipients: [
    ...new Set(["recipient_player_id", ...Object.keys(RECIPIENT_FIELDS), ...Object.keys(RECIPIENT_NOTICE_FIELDS)]),
  ],
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

/**
 * One canonical text per value, whether it came from the service (strings) or back from the database (Date,
 * numeric).
 */
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

/** The same JSON value as far as stableJson can tell (object keys in any order), without building any text. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, index) => sameJson(value, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

const FIELD_LISTS = new Map<FieldSpec, [string, Kind][]>();

function fieldList(fields: FieldSpec): [string, Kind][] {
  let list = FIELD_LISTS.get(fields);
  if (!list) {
    list = Object.entries(fields);
    FIELD_LISTS.set(fields, list);
  }
  return list;
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
  for (const [field, kind] of fieldList(fields)) {
    const a = previous[field];
    const b = current[field];
    // Identical values normalise alike, and so do JSON values that differ in key order only: most fields of a
    // reproduced window end here, without building their normal form.
    if (a === b || (kind === "json" && sameJson(a, b))) continue;
    const before = normalise(kind, a);
    const after = normalise(kind, b);
    if (before !== after) out.push({ severity, entity, entityKey: key, field, previous: before, current: after });
  }
}

type Entity = Exclude<DriftEntry["entity"], "totals">;

const ROW_SETS: {
  rows: keyof SnapshotRows;
  entity: Entity;
  keyOf: (row: Row) => string;
  fields: FieldSpec;
  noticeFields?: FieldSpec;
}[] = [
  {
    rows: "recipients",
    entity: "recipient",
    keyOf: (row) => String(row.recipient_player_id),
    fields: RECIPIENT_FIELDS,
    noticeFields: RECIPIENT_NOTICE_FIELDS,
  },
  { rows: "lines", entity: "line", keyOf: (row) => String(row.period_id), fields: LINE_FIELDS },
  { rows: "reversals", entity: "reversal", keyOf: (row) => String(row.period_id), fields: REVERSAL_FIELDS },
  {
    rows: "events",
    entity: "refund_event",
    keyOf: (row) => `${String(row.period_id)}#${String(row.seq)}`,
    fields: EVENT_FIELDS,
  },
];

export type ComparableVersion = { totals: Record<string, unknown>; rows: SnapshotRows };

/** A row only one of the versions has: `now` says which. */
function presence(entity: Entity, key: string, now: "present" | "absent"): DriftEntry {
  const before = now === "present" ? "absent" : "present";
  return { severity: "drift", entity, entityKey: key, field: "(present)", previous: before, current: now };
}

/**
 * The differences of one renewal line between two versions, either side possibly missing, exactly as the comparer
 * finds them: publishing compares the lines in the database and reads back only those that differ there.
 */
export function compareLine(out: DriftEntry[], key: string, previous: Row | null, current: Row | null): void {
  if (previous && current) compareFields(out, "line", key, previous, current, LINE_FIELDS);
  else if (previous || current) out.push(presence("line", key, current ? "present" : "absent"));
}

/**
 * Compares a new version with a previous one as its rows come in, page by page, so that a pull can do the work while
 * it waits for the service; `finish` adds the totals and the rows that are gone. Same result as compareVersions.
 */
export type DriftComparer = {
  add(rows: SnapshotRows): void;
  finish(totals: Record<string, unknown>): DriftEntry[];
};

export function createDriftComparer(previous: ComparableVersion): DriftComparer {
  const sets = ROW_SETS.map((set) => ({
    ...set,
    before: new Map(previous.rows[set.rows].map((row) => [set.keyOf(row), row])),
    seen: new Set<string>(),
    out: [] as DriftEntry[],
  }));
  return {
    add(rows) {
      for (const set of sets) {
        for (const row of rows[set.rows]) {
          const key = set.keyOf(row);
          set.seen.add(key);
          const old = set.before.get(key);
          if (!old) {
            set.out.push(presence(set.entity, key, "present"));
            continue;
          }
          compareFields(set.out, set.entity, key, old, row, set.fields);
          if (set.noticeFields) compareFields(set.out, set.entity, key, old, row, set.noticeFields, "notice");
        }
      }
    },
    finish(totals) {
      const out: DriftEntry[] = [];
      compareFields(out, "totals", "window", previous.totals, totals, TOTALS_FIELDS);
      for (const set of sets) {
        out.push(...set.out);
        for (const key of set.before.keys()) {
          if (!set.seen.has(key)) out.push(presence(set.entity, key, "absent"));
        }
      }
      return out;
    },
  };
}

/** Every difference between two versions of one window, totals first. */
export function compareVersions(previous: ComparableVersion, current: ComparableVersion): DriftEntry[] {
  const comparer = createDriftComparer(previous);
  comparer.add(current.rows);
  return comparer.finish(current.totals);
}
