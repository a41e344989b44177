import type { ColumnType, Generated } from "kysely";
import type { CreatedAt, Timestamp } from "./columns";

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

export type AuthTables = {
  auth_user: AuthUserTable;
  auth_session: AuthSessionTable;
  auth_account: AuthAccountTable;
  auth_verification: AuthVerificationTable;
  auth_rate_limit: AuthRateLimitTable;
  sign_in_attempt: SignInAttemptTable;
};
