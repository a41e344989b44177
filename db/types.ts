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
  updated_at: Timestamp;
  completed_at: Timestamp | null;
};

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
  job_id: string | null;
  queued_at: CreatedAt;
};

export type Database = {
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
  session_game: SessionGameTable;
  app_setting: AppSettingTable;
  audit_log: AuditLogTable;
};
