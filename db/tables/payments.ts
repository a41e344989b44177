import type { ColumnType, Generated } from "kysely";
import type { CreatedAt, NullableNumeric, NullableTimestamp, Numeric } from "./columns";

// --- Payment files (db/migrations/2026_11_24_1400_payment_files.ts) ------------------------------------------------

export type PaymentFileMethod = "paypal" | "wise" | "pain001" | "generic";
export type PaymentFileStatus = "live" | "cancelled" | "completed";
export type PaymentResultOutcome = "paid" | "pending" | "rejected" | "returned";

export type PaymentFileTable = {
  id: Generated<string>;
  game_id: string;
  batch_id: string;
  method: PaymentFileMethod;
  file_name: string;
  part: number;
  part_count: number;
  currency: string;
  eur_rate: NullableNumeric;
  rate_source: string | null;
  /** A date, "2026-11-25"; written as text, read back as a Date at midnight UTC. */
  execution_date: ColumnType<Date | null, string | null | undefined, string | null>;
  status: ColumnType<PaymentFileStatus, PaymentFileStatus | undefined, PaymentFileStatus>;
  sha256: string;
  created_by_id: string;
  created_by_email: string;
  created_at: CreatedAt;
  row_count: number;
  total_usd: Numeric;
  total_amount: Numeric;
  cancelled_at: NullableTimestamp;
  cancelled_by_email: string | null;
  cancel_reason: string | null;
  /** The file as written, sealed (it holds bank details; 2026_11_24_1800); its SHA-256 is `sha256`. */
  content_sealed: ColumnType<string | null, string | null | undefined, never>;
  /** Downloads of the file (2026_12_06_1000), counted in the transaction that checks it is not cancelled. */
  download_count: ColumnType<number, never, number>;
  last_downloaded_at: ColumnType<Date | null, never, Date>;
  last_downloaded_by_email: ColumnType<string | null, never, string | null>;
  media_type: ColumnType<string, string | undefined, never>;
};

export type PaymentFileItemTable = {
  file_id: string;
  /** Mirrors payment_file.status (foreign key, ON UPDATE CASCADE): never written by hand after insert. */
  file_status: ColumnType<PaymentFileStatus, PaymentFileStatus, never>;
  game_id: string;
  statement_id: string;
  reference: string;
  amount_usd: Numeric;
  amount_currency: Numeric;
  currency: string;
  /** The provider paid or rejected it (2026_11_24_1800): no longer open in its live file. */
  settled: ColumnType<boolean, boolean | undefined, boolean>;
  /** The masked details the item was written with (2026_12_02_0900); null in files made before. */
  account_masked: ColumnType<string | null, string | null | undefined, never>;
};

export type PaymentResultTable = {
  id: Generated<string>;
  file_id: string;
  statement_id: string;
  reference: string;
  outcome: PaymentResultOutcome;
  provider_transaction_id: string | null;
  amount: NullableNumeric;
  currency: string | null;
  fee: NullableNumeric;
  reason: string | null;
  raw_status: string;
  source_sha256: string;
  imported_at: CreatedAt;
};

export type PaymentReturnKind = "rejected" | "returned";

/**
 * A payment that did not reach the recipient (2026_11_24_1800): rejected before it was paid, or returned after.
 * A returned one keeps what the payment was (amount, date, reference, when it was recorded), so the ledger can show
 * the payment and its return even once the statement is paid again.
 */
export type PaymentReturnTable = {
  id: Generated<string>;
  game_id: string;
  batch_id: string;
  statement_id: string;
  recipient_player_id: ColumnType<string, number | string, never>;
  kind: PaymentReturnKind;
  amount_usd: Numeric;
  reason: string;
  file_id: string | null;
  result_id: string | null;
  /** Recorded paid by mistake and undone by hand: owed again, though nothing came back (no flag, no return posted). */
  undone: ColumnType<boolean, boolean | undefined, never>;
  paid_at: NullableTimestamp;
  paid_on: ColumnType<Date | null, string | null | undefined, never>;
  payment_method: string | null;
  payment_reference: string | null;
  paid_by_id: string | null;
  actor_id: string | null;
  actor_email: string | null;
  via: string;
  at: CreatedAt;
};

export type PaymentTables = {
  payment_return: PaymentReturnTable;
  payment_file: PaymentFileTable;
  payment_file_item: PaymentFileItemTable;
  payment_result: PaymentResultTable;
};

/** A result as read from a provider's file, normalised (lib/payments/formats/results.ts reads them). */
export type NormalisedPaymentResult = {
  reference: string;
  outcome: PaymentResultOutcome;
  providerTransactionId: string | null;
  amount: string | null;
  currency: string | null;
  fee: string | null;
  reason: string | null;
  /** The provider's own status word, as written in the file. */
  rawStatus: string;
};
