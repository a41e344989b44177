import type { ColumnType, Generated } from "kysely";
import type { CreatedAt, Numeric, Timestamp } from "./columns";

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

/** A change of a subscription under way (lib/refunds/changes.ts): a second one meanwhile is refused. */
export type SubscriptionChangeHoldTable = {
  game_id: string;
  subscription_id: string;
  token: string;
  held_until: Date;
};

export type RefundTables = {
  refund_attempt: RefundAttemptTable;
  subscription_change_hold: SubscriptionChangeHoldTable;
};
