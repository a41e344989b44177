import type { ColumnType } from "kysely";
import type { Numeric, Timestamp } from "./columns";

/** Payout Desk's own accounts, each mapped per game to a code of the studio's ledger. */
export type AccountingAccount = "expense" | "payable" | "clearing" | "returns";

export type AccountingAccountMapTable = {
  game_id: string;
  account: AccountingAccount;
  /** The ledger's account code (Xero) or full account name (QuickBooks Online). */
  code: string;
  /** The ledger's tax rate name (Xero's TaxRate column); null when none was given. */
  tax_rate: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_by_email: string | null;
};

/** A window whose batch is paid, closed (or reopened) by finance with a reason; history is in the audit log. */
export type PayoutWindowClosingTable = {
  game_id: string;
  window_start: Timestamp;
  window_end: Timestamp;
  batch_id: string;
  closed: boolean;
  reason: string;
  changed_at: ColumnType<Date, Date | string | undefined, Date | string>;
  changed_by_email: string | null;
};

/** The year-end reporting threshold of a calendar year (USD). */
export type PayeeReportingThresholdTable = {
  year: number;
  amount_usd: Numeric;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_by_email: string | null;
};

export type AccountingTables = {
  accounting_account_map: AccountingAccountMapTable;
  payout_window_closing: PayoutWindowClosingTable;
  payee_reporting_threshold: PayeeReportingThresholdTable;
};
