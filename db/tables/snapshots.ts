import type { Generated } from "kysely";
import type { BigIntId, CreatedAt, Json, NullableNumeric, NullableTimestamp, Numeric, Timestamp } from "./columns";

// --- Window snapshots (db/migrations/2026_11_22_1000_snapshots.ts) ---------------------------------------------

export type SnapshotPullStatus = "queued" | "running" | "retrying" | "complete" | "failed";
export type SnapshotPullTable = {
  id: string;
  game_id: string;
  window_start: Timestamp;
  window_end: Timestamp;
  status: SnapshotPullStatus;
  via: string;
  requested_by_id: string | null;
  requested_by_email: string | null;
  requested_at: CreatedAt;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  heartbeat_at: NullableTimestamp;
  attempts: Generated<number>;
  job_id: string | null;
  snapshot_id: string | null;
  phase: Generated<string>;
  pages_fetched: Generated<number>;
  pages_estimated: number | null;
  recipients_fetched: Generated<number>;
  recipients_total: number | null;
  lines_fetched: Generated<number>;
  reversals_fetched: Generated<number>;
  requests: Generated<number>;
  rate_limited: Generated<number>;
  retries: Generated<number>;
  sub_windows: Generated<number>;
  eta_at: NullableTimestamp;
  error_code: string | null;
  error_message: string | null;
  updated_at: Generated<Date>;
};

export type SnapshotDriftStatus = "first_version" | "not_comparable" | "reproduced" | "drift";

export type SnapshotTable = {
  id: string;
  game_id: string;
  window_start: Timestamp;
  window_end: Timestamp;
  version: number;
  pull_id: string;
  taken_by_email: string | null;
  published_at: CreatedAt;
  fetch_started_at: Timestamp;
  fetch_finished_at: Timestamp;
  service_generated_at: Timestamp;
  window_closed: boolean;
  built_from: "single" | "split";
  page_count: number;
  request_count: number;
  rate_limited: number;
  retries: number;
  duration_ms: number;
  sub_window_count: number;
  line_count: number;
  reversal_count: number;
  refund_event_count: number;
  renewals_settled: number;
  settled_gross_usd: Numeric;
  invo_fee_usd: Numeric;
  partner_revenue_settled_usd: Numeric;
  partner_revenue_reversed_usd: Numeric;
  partner_revenue_usd: Numeric;
  renewals_with_attribution: number;
  renewals_without_attribution: number;
  unattributed_reasons: Json<Record<string, number>>;
  gross_attributed_usd: Numeric;
  reversed_attributed_usd: Numeric;
  net_attributed_usd: Numeric;
  renewals_settled_then_fully_reversed: number;
  refund_events_in_window: number;
  reversals_without_receipts: number;
  recipient_count: number;
  report: Json<Record<string, unknown>>;
  attribution_notice: Json<Record<string, unknown>>;
  checks: Json<{ name: string; expected: string; actual: string; ok: boolean }[]>;
  build_notes: Json<string[]>;
  compared_to_snapshot_id: string | null;
  drift_status: SnapshotDriftStatus;
  drift_count: Generated<number>;
};

export type SnapshotRecipientTable = {
  snapshot_id: string;
  recipient_player_id: BigIntId;
  service_rank: number;
  resolved: boolean;
  player_email: string | null;
  player_name: string | null;
  identity_id: string | null;
  renewal_count: number;
  subscription_count: number;
  reversal_count: number;
  gross_attributed_usd: Numeric;
  reversed_attributed_usd: Numeric;
  net_attributed_usd: Numeric;
  first_paid_at: NullableTimestamp;
  last_paid_at: NullableTimestamp;
};

export type SnapshotLineTable = {
  snapshot_id: string;
  period_id: BigIntId;
  recipient_player_id: BigIntId;
  subscription_id: string;
  period_seq: number;
  item_id: string;
  item_name: string;
  status: string;
  period_start: Timestamp;
  period_end: Timestamp;
  paid_at: NullableTimestamp;
  amount_usd: Numeric;
  invo_fee_usd: NullableNumeric;
  partner_revenue_usd: NullableNumeric;
  partner_revenue_settled_usd: NullableNumeric;
  partner_revenue_reversed_usd: NullableNumeric;
  partner_leg_reversed: boolean;
  percent_at_renewal: NullableNumeric;
  base_usd: NullableNumeric;
  attributed_amount_usd: NullableNumeric;
  attribution_unavailable_reason: string | null;
  transaction_id: string | null;
  mint_order_id: string | null;
  funding: Json<Record<string, unknown> | null>;
  refund: Json<Record<string, unknown> | null>;
  reconciliation: Json<LineReconciliation | null>;
};

/** How a renewal line's recorded base compares with the settled fee, as the service reported it. */
export type LineReconciliation = {
  checked?: boolean;
  expected_base_usd?: string;
  recorded_base_usd?: string;
  base_matches_settled_fee?: boolean;
};

export type SnapshotReversalTable = {
  snapshot_id: string;
  period_id: BigIntId;
  recipient_player_id: BigIntId;
  subscription_id: string;
  period_seq: number;
  status: string;
  paid_at: NullableTimestamp;
  settled_in_this_window: boolean;
  amount_usd: Numeric;
  originally_attributed_usd: Numeric;
  refunded_to_date_usd: Numeric;
  latest_refund_at: NullableTimestamp;
  reversed_attributed_usd: Numeric;
  partner_revenue_reversed_usd: Numeric;
  reversal_basis: string;
  nets_to_zero_in_window: boolean;
  note: string | null;
  event_count: number;
};

export type SnapshotRefundEventTable = {
  snapshot_id: string;
  period_id: BigIntId;
  seq: number;
  refunded_at: Timestamp;
  refunded_amount_usd: Numeric;
  cumulative_refunded_before_usd: Numeric;
  cumulative_refunded_after_usd: Numeric;
  reversed_attributed_usd: Numeric;
  partner_revenue_reversed_usd: Numeric;
  partner_revenue_reversal_basis: string;
  is_full_refund: boolean;
};

export type SnapshotPageTable = {
  snapshot_id: string;
  seq: number;
  window_start: Timestamp;
  window_end: Timestamp;
  recipient_player_id: BigIntId | null;
  page_offset: number;
  page_limit: number;
  fetched_at: Timestamp;
  body: string;
};

export type SnapshotSubWindowTable = {
  snapshot_id: string;
  seq: number;
  scope: "window" | "recipient";
  recipient_player_id: BigIntId | null;
  window_start: Timestamp;
  window_end: Timestamp;
  depth: number;
  reason: string;
  pages: number;
};

export type SnapshotDriftTable = {
  snapshot_id: string;
  seq: number;
  previous_snapshot_id: string;
  severity: "drift" | "notice";
  entity: string;
  entity_key: string;
  field: string;
  previous_value: string | null;
  current_value: string | null;
};

export type SnapshotStaleMarkTable = {
  id: Generated<string>;
  game_id: string;
  instant: Timestamp;
  reason: string;
  detail: Json<Record<string, unknown>>;
  marked_at: CreatedAt;
};

export type ServicePeriodDetailTable = {
  id: Generated<string>;
  game_id: string;
  period_id: BigIntId;
  subscription_id: string;
  fetched_at: CreatedAt;
  invalidated_at: NullableTimestamp;
  body: string;
};

export type ServiceSubscriptionAttributionTable = {
  id: Generated<string>;
  game_id: string;
  subscription_id: string;
  fetched_at: CreatedAt;
  invalidated_at: NullableTimestamp;
  page_count: number;
  body: Json<Record<string, unknown>>;
  pages: Json<string[]>;
};

export type SnapshotTables = {
  snapshot_pull: SnapshotPullTable;
  snapshot: SnapshotTable;
  snapshot_recipient: SnapshotRecipientTable;
  snapshot_line: SnapshotLineTable;
  snapshot_reversal: SnapshotReversalTable;
  snapshot_refund_event: SnapshotRefundEventTable;
  snapshot_page: SnapshotPageTable;
  snapshot_sub_window: SnapshotSubWindowTable;
  snapshot_drift: SnapshotDriftTable;
  snapshot_stale_mark: SnapshotStaleMarkTable;
  service_period_detail: ServicePeriodDetailTable;
  service_subscription_attribution: ServiceSubscriptionAttributionTable;
};
