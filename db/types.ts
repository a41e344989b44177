import type { ColumnType, Generated } from "kysely";

/** Timestamps come back as Date and may be written as Date or ISO text. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** `numeric` comes back from pg as a string and stays one (see lib/money.ts). */
export type Numeric = ColumnType<string, string, string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export type Role = "admin" | "finance" | "support" | "viewer";

export type AuthUserTable = {
  id: string;
  name: string;
  email: string;
  email_verified: boolean;
  image: string | null;
  role: Role;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type AuthSessionTable = {
  id: string;
  expires_at: Timestamp;
  token: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  ip_address: string | null;
  user_agent: string | null;
  user_id: string;
};

export type AuthAccountTable = {
  id: string;
  account_id: string;
  provider_id: string;
  user_id: string;
  access_token: string | null;
  refresh_token: string | null;
  id_token: string | null;
  access_token_expires_at: Timestamp | null;
  refresh_token_expires_at: Timestamp | null;
  scope: string | null;
  password: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type AuthVerificationTable = {
  id: string;
  identifier: string;
  value: string;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type AuthRateLimitTable = {
  id: string;
  key: string;
  count: number;
  last_request: ColumnType<string, number | string, number | string>;
};

export type SignInAttemptTable = {
  id: Generated<string>;
  email: string;
  ip: string;
  succeeded: boolean;
  at: CreatedAt;
};

export type GameEnvironment = "sandbox" | "production";

export type GameTable = {
  id: string;
  name: string;
  environment: GameEnvironment;
  base_url: string;
  secret_sealed: string;
  secret_mask: string;
  webhook_secret_sealed: string | null;
  webhook_secret_mask: string | null;
  webhook_previous_secret_sealed: string | null;
  webhook_previous_secret_mask: string | null;
  webhook_previous_expires_at: Timestamp | null;
  settings: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: Timestamp;
};

export type SessionGameTable = {
  session_id: string;
  game_id: string;
  updated_at: Timestamp;
};

export type AppSettingTable = {
  key: string;
  value: Json;
  updated_at: Timestamp;
  updated_by: string | null;
};

export type AuditLogTable = {
  id: Generated<string>;
  at: CreatedAt;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  game_id: string | null;
  target: string | null;
  idempotency_key: string | null;
  outcome: string;
  detail: Json<Record<string, unknown>>;
};

export type RefundAttemptStatus = "pending" | "succeeded" | "failed" | "needs_attention" | "resolved";

export type RefundAttemptTable = {
  id: Generated<string>;
  game_id: string;
  subscription_id: string;
  period_seq: number;
  /** bigint: read back as a string. */
  period_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  player_email: string | null;
  amount_usd: Numeric;
  remaining_before_usd: Numeric;
  is_full: boolean;
  reason: string | null;
  client_request_id: string;
  intent_key: string;
  status: ColumnType<RefundAttemptStatus, RefundAttemptStatus | undefined, RefundAttemptStatus>;
  actor_id: string | null;
  actor_email: string | null;
  actor_role: string | null;
  impact: ColumnType<Record<string, unknown>, string | undefined, string>;
  calls: ColumnType<number, number | undefined, number>;
  claimed_until: Timestamp | null;
  last_called_at: Timestamp | null;
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_detail: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  receipt: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  transaction_id: string | null;
  refunded_at: Timestamp | null;
  idempotent_replay: boolean | null;
  resolution_note: string | null;
  resolved_by: string | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  completed_at: Timestamp | null;
  /** When the period was read again and matched the review, just before the first call; null: never sent. */
  period_checked_at: Timestamp | null;
  // Outcome safety: an unknown outcome, the holder of the call, and what a settlement found.
  /** Some call may have reached the service without a readable answer; only a receipt or the period report ends it. */
  outcome_unknown: ColumnType<boolean, boolean | undefined, boolean>;
  /** The current holder's token while a request holds the attempt. */
  claim_token: string | null;
  /** Set when a person settles the attempt: whether the service refunded it. */
  resolution_outcome: RefundResolutionOutcome | null;
};

export type RefundResolutionOutcome = "refunded" | "not_refunded";

export type WebhookEventStatus = "pending" | "processed" | "failed" | "unprocessable";

export type WebhookEventTable = {
  /** bigserial: read back as a string. */
  id: ColumnType<string, never, never>;
  game_id: string;
  idempotency_key: string;
  event_id: string;
  event_type: string;
  delivery_id: string | null;
  secret_version: string | null;
  signed_with: "current" | "previous";
  signature_timestamp: Timestamp;
  occurred_at: Timestamp | null;
  subscription_id: string | null;
  client_request_id: string | null;
  /** The body exactly as signed and received. */
  body: string;
  parse_issues: ColumnType<string[] | null, string | null | undefined, string | null>;
  status: ColumnType<WebhookEventStatus, WebhookEventStatus | undefined, WebhookEventStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  effect: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  processed_at: Timestamp | null;
  received_at: CreatedAt;
};

export type WebhookDeliveryOutcome = "accepted" | "duplicate" | "refused";

export type WebhookDeliveryCountTable = {
  game_id: string;
  /** A UTC date, "2026-11-22"; written as text. */
  day: ColumnType<Date, string, string>;
  outcome: WebhookDeliveryOutcome;
  reason: string;
  /** bigint: read back as a string. */
  count: ColumnType<string, number | string, number | string>;
  last_at: Timestamp;
};

export type ScheduledPullTable = {
  game_id: string;
  kind: "previous_month" | "current_month";
  period_key: string;
  window_start: Timestamp;
  window_end: Timestamp;
  pull_id: string | null;
  queued_at: CreatedAt;
};

// --- Window snapshots (db/migrations/2026_11_22_1000_snapshots.ts) ---------------------------------------------

export type SnapshotPullStatus = "queued" | "running" | "retrying" | "complete" | "failed";
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type NullableNumeric = ColumnType<string | null, string | null, string | null>;
/** bigint ids (recipient, period) come back from pg as strings; written as numbers. */
type BigIntId = ColumnType<string, number | string, number | string>;

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
  reconciliation: Json<Record<string, unknown> | null>;
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

// --- Payouts (db/migrations/2026_11_22_1030_payouts.ts) ------------------------------------------------------------

export type PayoutBatchStatus = "draft" | "approved" | "paid" | "discarded";
export type PayoutStatementState = "draft" | "approved" | "held" | "paid" | "carried";

export type PayoutBatchTable = {
  id: string;
  game_id: string;
  window_start: Timestamp;
  window_end: Timestamp;
  snapshot_id: string;
  snapshot_version: number;
  status: PayoutBatchStatus;
  min_payout_usd: Numeric;
  two_person_rule: boolean;
  prepared_by_id: string;
  prepared_by_email: string;
  prepared_at: CreatedAt;
  approved_by_id: string | null;
  approved_by_email: string | null;
  approved_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  discarded_by_email: string | null;
  discarded_at: NullableTimestamp;
  discard_reason: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
};

export type PayoutStatementTable = {
  id: string;
  batch_id: string;
  game_id: string;
  recipient_player_id: BigIntId;
  in_snapshot: boolean;
  resolved: boolean;
  player_email: string | null;
  player_name: string | null;
  renewal_count: number;
  subscription_count: number;
  reversal_count: number;
  gross_attributed_usd: Numeric;
  reversed_attributed_usd: Numeric;
  net_attributed_usd: Numeric;
  carried_in_usd: Numeric;
  available_usd: Numeric;
  payable_usd: Numeric;
  carry_out_usd: Numeric;
  recipient_flags: ColumnType<string[], string | undefined, string>;
  state: PayoutStatementState;
  hold_reason: string | null;
  state_changed_at: ColumnType<Date, Date | string | undefined, Date | string>;
  state_changed_by_email: string | null;
  paid_amount_usd: NullableNumeric;
  /** A UTC date, "2026-04-03"; written as text, read back as a Date at midnight UTC. */
  paid_on: ColumnType<Date | null, string | null | undefined, string | null>;
  payment_method: string | null;
  payment_reference: string | null;
  closed_at: NullableTimestamp;
};

export type PayoutCarryTable = {
  from_statement_id: string;
  to_statement_id: string;
  amount_usd: Numeric;
  linked_at: CreatedAt;
};

export type PayoutFlagOverrideTable = {
  id: Generated<string>;
  batch_id: string;
  game_id: string;
  recipient_player_id: ColumnType<string | null, number | string | null, number | string | null>;
  flag: string;
  reason: string;
  actor_id: string;
  actor_email: string;
  at: CreatedAt;
  /** The flag instance covered (2026_11_23_1400): its cause key and when that cause was raised. */
  cause: Generated<string>;
  raised_at: Date | null;
};

export type PayoutStatementEventTable = {
  id: Generated<string>;
  statement_id: string;
  batch_id: string;
  game_id: string;
  recipient_player_id: BigIntId;
  at: ColumnType<Date, Date | string | undefined, never>;
  kind: string;
  state_after: PayoutStatementState;
  actor_id: string | null;
  actor_email: string | null;
  detail: ColumnType<Record<string, unknown>, string | undefined, never>;
};

export type Database = {
  payout_batch: PayoutBatchTable;
  payout_statement: PayoutStatementTable;
  payout_carry: PayoutCarryTable;
  payout_flag_override: PayoutFlagOverrideTable;
  payout_statement_event: PayoutStatementEventTable;
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
  webhook_event: WebhookEventTable;
  webhook_delivery_count: WebhookDeliveryCountTable;
  scheduled_pull: ScheduledPullTable;
  refund_attempt: RefundAttemptTable;
  auth_user: AuthUserTable;
  auth_session: AuthSessionTable;
  auth_account: AuthAccountTable;
  auth_verification: AuthVerificationTable;
  auth_rate_limit: AuthRateLimitTable;
  sign_in_attempt: SignInAttemptTable;
  game: GameTable;
  key_check: KeyCheckTable;
  session_game: SessionGameTable;
  app_setting: AppSettingTable;
  audit_log: AuditLogTable;
  service_dispute: ServiceDisputeTable;
};

// --- Disputes (2026_11_23_1400) ---------------------------------------------------------------------------------------

export type ServiceDisputeStatus = "open" | "won" | "lost";

export type ServiceDisputeTable = {
  id: Generated<string>;
  game_id: string;
  dispute_id: string;
  order_id: string;
  transaction_id: string | null;
  reason: string | null;
  usd_amount: string | null;
  status: ServiceDisputeStatus;
  opened_at: Date | null;
  closed_at: Date | null;
  currency_debited: string | null;
  opened_event_id: string | null;
  closed_event_id: string | null;
  updated_at: Generated<Date>;
};

/**
 * Which key the sealed columns are sealed with: a public id and a fingerprint (an HMAC of a fixed label under a key
 * derived from it), never the key. One row, written when the first secret is sealed and by each key rotation.
 */
export type KeyCheckTable = {
  id: ColumnType<boolean, boolean | undefined, never>;
  key_id: string;
  fingerprint: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
  rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
};
