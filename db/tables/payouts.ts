import type { ColumnType, Generated } from "kysely";
import type { BigIntId, CreatedAt, NullableNumeric, NullableTimestamp, Numeric, Timestamp } from "./columns";

// --- Payouts (db/migrations/2026_11_22_1030_payouts.ts) ------------------------------------------------------------

export type PayoutBatchStatus = "draft" | "approved" | "paid" | "discarded";
/**
 * in_payment: in a live payment file (payment_file_id names it); returned: a paid payment came back and is owed
 * again (2026_11_24_1800).
 */
export type PayoutStatementState = "draft" | "approved" | "held" | "in_payment" | "paid" | "returned" | "carried";

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
  /** One more with every change of the batch or its statements (a bigint, read as a string). */
  revision: ColumnType<string, never, string>;
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
  /** What the statement deducts of the reversals reported: those less `reversed_before_usd`. */
  reversed_attributed_usd: Numeric;
  /** Reported in the snapshot and deducted already by another window's approved batch (2026_12_17_0900). */
  reversed_before_usd: ColumnType<string, string | undefined, string>;
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
  /** The account paid, masked (2026_12_02_0900): set with the payment, cleared when it comes back. */
  paid_to_masked: ColumnType<string | null, never, string | null>;
  /** The reference sent to payment providers (2026_11_24_1400; lib/payments/reference.ts), unique per game. */
  provider_reference: ColumnType<string | null, string | null | undefined, string | null>;
  closed_at: NullableTimestamp;
  /** The live payment file the statement is in while in_payment (2026_11_24_1800). */
  payment_file_id: ColumnType<string | null, string | null | undefined, string | null>;
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

/** Statements of a batch per state, kept by triggers (2026_11_25_1200); read only. */
export type PayoutBatchTallyTable = {
  batch_id: string;
  state: PayoutStatementState;
  statements: ColumnType<string, never, never>;
  payable_usd: ColumnType<string, never, never>;
  payable_statements: ColumnType<string, never, never>;
  flagged: ColumnType<string, never, never>;
};

export type PayoutTables = {
  payout_batch_tally: PayoutBatchTallyTable;
  payout_batch: PayoutBatchTable;
  payout_statement: PayoutStatementTable;
  payout_carry: PayoutCarryTable;
  payout_flag_override: PayoutFlagOverrideTable;
  payout_statement_event: PayoutStatementEventTable;
};
