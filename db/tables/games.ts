import type { ColumnType, Generated } from "kysely";
import type { CreatedAt, Json, Timestamp } from "./columns";

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
  /** web, cli or job (2026_11_24_0900). */
  via: ColumnType<string, string | undefined, never>;
};

export type GameTables = {
  game: GameTable;
  session_game: SessionGameTable;
  app_setting: AppSettingTable;
  audit_log: AuditLogTable;
};
