import type { ColumnType, Generated } from "kysely";
import type { BigIntId, CreatedAt, Timestamp } from "./columns";

// --- Statements (db/migrations/2026_11_24_1600_statements.ts) --------------------------------------------------

export type StatementDeliveryStatus = "queued" | "sent" | "failed";

export type StatementCounterTable = { game_id: string; last_number: number };

export type StatementDocumentTable = {
  statement_id: string;
  game_id: string;
  number: number;
  numbered_at: CreatedAt;
  /** The issuer as it was when the statement was first emailed; null before (migration 2026_12_11_1000). */
  issuer_name: ColumnType<string | null, string | null | undefined, string | null>;
  issuer_address: ColumnType<string | null, string | null | undefined, string | null>;
};

export type StatementDeliveryTable = {
  id: Generated<string>;
  statement_id: string;
  game_id: string;
  recipient_player_id: BigIntId;
  /** One send of a statement: its queued, failed and sent lines share it. */
  send_id: string;
  status: StatementDeliveryStatus;
  to_address: string | null;
  attempt: ColumnType<number, number | undefined, number>;
  /** A failure after which no retry follows. */
  final: ColumnType<boolean, boolean | undefined, boolean>;
  server_answer: string | null;
  at: CreatedAt;
};

export type StatementDeliveryFailureTable = {
  game_id: string;
  recipient_player_id: BigIntId;
  statement_id: string;
  server_answer: string;
  failed_at: Timestamp;
  /** The address refused (null for failures recorded before it was kept). */
  to_address: string | null;
  /** The server refused the address for good (a 5xx to RCPT TO), not a failure of ours: raises a profile flag. */
  refused: ColumnType<boolean, boolean | undefined, boolean>;
};

export type StatementLinkRevocationTable = {
  batch_id: string;
  revoked_at: Timestamp;
  revoked_by_email: string | null;
};

/** How many of a batch's statements were ever emailed (2026_11_30_0900). */
export type PayoutBatchEmailedTable = {
  batch_id: string;
  statements: ColumnType<string, number, number>;
  /** Times the batch's statement emails were queued (2026_12_07_0900). */
  runs: Generated<number>;
};

/** Downloads of a statement through its links in the hour from `since`, the database's clock (2026_12_04_0900). */
export type StatementLinkDownloadTable = { statement_id: string; since: Timestamp; downloads: number };

/** A statement whose last email failed to send, not refused (2026_12_05_0900). */
export type StatementSendFailureTable = { statement_id: string; batch_id: string; failed_at: Timestamp };

export type MailMessageTable = {
  id: Generated<string>;
  received_at: CreatedAt;
  mail_from: string | null;
  rcpt_to: string;
  subject: string | null;
  raw: Buffer;
};

export type StatementTables = {
  statement_counter: StatementCounterTable;
  statement_document: StatementDocumentTable;
  statement_delivery: StatementDeliveryTable;
  statement_delivery_failure: StatementDeliveryFailureTable;
  statement_link_revocation: StatementLinkRevocationTable;
  statement_link_download: StatementLinkDownloadTable;
  statement_send_failure: StatementSendFailureTable;
  payout_batch_emailed: PayoutBatchEmailedTable;
  mail_message: MailMessageTable;
};
