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

export type Database = {
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
