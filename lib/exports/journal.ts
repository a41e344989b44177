import "server-only";
import { iterateLedgerEntries, type LedgerEntry } from "@/lib/payouts/ledger";
import { batchRecipientNames, type RecipientNames as Names } from "@/db/queries/exports";
import { formatUsd } from "@/lib/money";
import type { ExportColumn, ExportRow } from "./csv";
import { inPages } from "./payouts";
import { postingOf } from "./postings";
import type { ExportKindDefinition } from "./types";

/**
 * The general-ledger accounts the journal posts to. Names, not codes: the accounting system maps each name to its
 * own chart of accounts on import.
 */
export const JOURNAL_ACCOUNTS = {
  /** The cost of revenue share earned by recipients (debited when earned, credited when reversed). */
  expense: "Revenue share expense",
  /** What Payout Desk owes recipients (credited when earned, debited when reversed or paid). */
  payable: "Revenue share payable",
  /**
   * Money sent to recipients, awaiting the bank statement (credited when a payment is recorded; debited back when a
   * payment recorded by mistake is undone).
   */
  clearing: "Revenue share payouts clearing",
  /** Payments the provider sent back (debited when a returned payment is recorded; payable credited again). */
  returns: "Returned payouts",
} as const;

export const JOURNAL_COLUMNS: readonly ExportColumn[] = [
  {
    name: "entry_id",
    type: "text",
    description:
      "The journal entry; its lines share it and balance (debits = credits). The same every time the file is made: " +
      "a payment that later comes back keeps its id, and its return is an entry of its own.",
  },
  { name: "line", type: "integer", description: "1 = debit line, 2 = credit line." },
  {
    name: "posting_date",
    type: "date",
    description:
      "Accounting date (UTC): the batch's approval for accrual and reversal, the recorded payment date for " +
      "payment (the approval's day when that is later), the day the return or the undoing was recorded for " +
      "payment_returned and payment_undone (the payment's posting date when that is later).",
  },
  {
    name: "recorded_at",
    type: "instant",
    description: "When the ledger entry came into being (approval, or when the payment or the return was recorded).",
  },
  { name: "account", type: "text", description: `One of: ${Object.values(JOURNAL_ACCOUNTS).join(", ")}.` },
  { name: "debit_usd", type: "decimal", description: "Debit amount (0.00 on a credit line)." },
  { name: "credit_usd", type: "decimal", description: "Credit amount (0.00 on a debit line)." },
  {
    name: "kind",
    type: "text",
    description: "accrual, reversal, payment, payment_returned or payment_undone (a payment recorded by mistake).",
  },
  { name: "description", type: "text", description: "What the entry records." },
  { name: "recipient_player_id", type: "integer", description: "The recipient (sub-ledger of the payable account)." },
  { name: "recipient_name", type: "text", description: "Name (empty when unresolved)." },
  { name: "recipient_email", type: "text", description: "Email (empty when unresolved)." },
  { name: "batch_id", type: "text", description: "The payout batch." },
  { name: "statement_id", type: "text", description: "The recipient's statement in the batch." },
  { name: "snapshot_id", type: "text", description: "The snapshot the figures come from." },
  { name: "snapshot_version", type: "integer", description: "Its version." },
  { name: "window_start", type: "instant", description: "Start of the window (UTC, inclusive)." },
  { name: "window_end", type: "instant", description: "End of the window (UTC, exclusive)." },
  {
    name: "reference",
    type: "text",
    description: "Snapshot reference (accrual, reversal) or the external payment reference (payment).",
  },
  { name: "payment_method", type: "text", description: "Payment method (payment only)." },
];

const PAGE_SIZE = 2_000;

/** The two lines of one ledger entry (lib/exports/postings.ts says which accounts and why). */
export function journalLines(entry: LedgerEntry, names: Names): ExportRow[] {
  const posting = postingOf(entry);
  if (!posting) return [];
  const who = names.get(entry.recipientPlayerId);
  const common = {
    entry_id: entry.entryId,
    posting_date: posting.date,
    recorded_at: entry.at,
    kind: posting.kind,
    description: posting.description,
    recipient_player_id: String(entry.recipientPlayerId),
    recipient_name: who?.name ?? null,
    recipient_email: who?.email ?? null,
    batch_id: entry.batchId,
    statement_id: entry.statementId,
    snapshot_id: entry.snapshotId,
    snapshot_version: String(entry.snapshotVersion),
    window_start: entry.windowStart,
    window_end: entry.windowEnd,
    reference: entry.reference,
    payment_method: entry.paymentMethod,
  };
  return posting.lines.map((line, i) => ({
    ...common,
    line: String(i + 1),
    account: JOURNAL_ACCOUNTS[line.account],
    debit_usd: line.side === "debit" ? formatUsd(line.amount) : "0.00",
    credit_usd: line.side === "credit" ? formatUsd(line.amount) : "0.00",
  }));
}

export const journalExport: ExportKindDefinition = {
  kind: "journal",
  title: "Journal",
  summary:
    "Double-entry lines for the general ledger, two per entry (accrual of revenue share payable, reversal, " +
    "payment, returned payment, undone payment) of an approved or paid payout batch, by recipient id.",
  columns: JOURNAL_COLUMNS,
  needsBatch: true,
  oneSnapshot: true,
  async *pages(db, target) {
    if (!target.batchId) throw new Error("the journal needs a payout batch");
    // Names come from the batch's statements (the ledger entries carry ids only), read once per export.
    const names = await batchRecipientNames(db, { gameId: target.gameId, batchId: target.batchId });
    const entries = iterateLedgerEntries(db, { gameId: target.gameId, batchId: target.batchId, pageSize: PAGE_SIZE });
    yield* inPages(entries, PAGE_SIZE, (entry) => journalLines(entry, names));
  },
};
