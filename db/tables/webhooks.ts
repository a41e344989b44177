import type { ColumnType } from "kysely";
import type { CreatedAt, Timestamp } from "./columns";

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

export type WebhookTables = {
  webhook_event: WebhookEventTable;
  webhook_delivery_count: WebhookDeliveryCountTable;
  scheduled_pull: ScheduledPullTable;
};
