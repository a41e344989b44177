import "server-only";
import { iterateLedgerEntries, type LedgerEntry } from "@/lib/payouts/ledger";
import { formatUsd, money } from "@/lib/money";
import type { ExportColumn, ExportRow } from "./csv";
import { inPages } from "./payouts";
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
  /** Money sent to recipients, awaiting the bank statement (credited when a payment is recorded). */
  clearing: "Revenue share payouts clearing",
} as const;

/** Ledger kinds that move money between accounts; carries move a balance between statements of one recipient. */
const POSTED = {
  accrual: "expense",
  reversal: "expense",
  payment: "clearing",
  // A payment that came back: the money is back from clearing and owed to the recipient again.
  payment_returned: "clearing",
} as const;
type PostedKind = keyof typeof POSTED;

const DESCRIPTIONS: Record<PostedKind, string> = {
  accrual: "Revenue share earned",
  reversal: "Revenue share reversed by refunds",
  payment: "Revenue share paid",
  payment_returned: "Revenue share payment returned",
};

export const JOURNAL_COLUMNS: readonly ExportColumn[] = [
  {
    name: "entry_id",
    type: "text",
    description: "The journal entry; its lines share it and balance (debits = credits).",
  },
  { name: "line", type: "integer", description: "1 = debit line, 2 = credit line." },
  {
    name: "posting_date",
    type: "date",
    description:
      "Accounting date (UTC): the batch's approval for accrual and reversal, the recorded payment date for payment.",
  },
  {
    name: "recorded_at",
    type: "instant",
    description: "When the ledger entry came into being (approval, or when the payment was recorded).",
  },
  { name: "account", type: "text", description: `One of: ${Object.values(JOURNAL_ACCOUNTS).join(", ")}.` },
  { name: "debit_usd", type: "decimal", description: "Debit amount (0.00 on a credit line)." },
  { name: "credit_usd", type: "decimal", description: "Credit amount (0.00 on a debit line)." },
  { name: "kind", type: "text", description: "accrual, reversal, payment or payment_returned." },
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

type Names = Map<number, { name: string | null; email: string | null }>;

/**
 * The two lines of one ledger entry. The entry's amount is the signed change in what is owed to the recipient:
 * a rise credits payable and debits the other account, a fall debits payable and credits the other account, so
 * every entry balances by construction. Carries (carry_in, carry_out, rollover) post nothing.
 */
export function journalLines(entry: LedgerEntry, names: Names): ExportRow[] {
  if (!(entry.kind in POSTED)) return [];
  const kind = entry.kind as PostedKind;
  const amount = money(entry.amountUsd);
  if (amount.isZero()) return [];
  const size = formatUsd(amount.abs());
  const other = JOURNAL_ACCOUNTS[POSTED[kind]];
  const [debitAccount, creditAccount] = amount.isPositive()
    ? [other, JOURNAL_ACCOUNTS.payable]
    : [JOURNAL_ACCOUNTS.payable, other];
  const who = names.get(entry.recipientPlayerId);
  const common = {
    entry_id: entry.entryId,
    posting_date: kind === "payment" && entry.paidOn ? entry.paidOn : entry.at.slice(0, 10),
    recorded_at: entry.at,
    kind,
    description: `${DESCRIPTIONS[kind]}: window ${entry.windowStart.slice(0, 10)} to ${entry.windowEnd.slice(0, 10)}`,
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
  return [
    { ...common, line: "1", account: debitAccount, debit_usd: size, credit_usd: "0.00" },
    { ...common, line: "2", account: creditAccount, debit_usd: "0.00", credit_usd: size },
  ];
}

export const journalExport: ExportKindDefinition = {
  kind: "journal",
  title: "Journal",
  summary:
    "Double-entry lines for the general ledger, two per entry (accrual of revenue share payable, reversal, payment) of an approved or paid payout batch, by recipient id.",
  columns: JOURNAL_COLUMNS,
  needsBatch: true,
  async *pages(db, target) {
    if (!target.batchId) throw new Error("the journal needs a payout batch");
    // Names come from the batch's statements (the ledger entries carry ids only), read once per export.
    const statements = await db
      .selectFrom("payout_statement")
      .select(["recipient_player_id", "player_name", "player_email"])
      .where("batch_id", "=", target.batchId)
      .where("game_id", "=", target.gameId)
      .execute();
    const names: Names = new Map(
      statements.map((s) => [Number(s.recipient_player_id), { name: s.player_name, email: s.player_email }]),
    );
    const entries = iterateLedgerEntries(db, { gameId: target.gameId, batchId: target.batchId, pageSize: PAGE_SIZE });
    yield* inPages(entries, PAGE_SIZE, (entry) => journalLines(entry, names));
  },
};
