import "server-only";
import { type QuickbooksDateOrder, readQuickbooksDateOrder } from "@/lib/accounting/date-order";
import { formatUsd } from "@/lib/money";
import type { ExportColumn, ExportRow } from "./csv";
import {
  batchPostingsOfPart,
  batchPostingsSplit,
  checkJournalAccounts,
  type JournalContext,
  type JournalSplit,
  journalContext,
  journalNumber,
  recipientLabel,
  slashDate,
} from "./journal-files";
import { inPages } from "./payouts";
import type { Posting } from "./postings";
import type { ExportKindDefinition, ResolvedTarget } from "./types";
import type { Db } from "@/db";

/**
 * QuickBooks Online journal entries, in the CSV its importer reads (Settings → Import data → Journal entries).
 * Rules Intuit's help ("Import journal entries") documents, and how this file keeps each:
 *
 * - Journal No groups lines: every line of one entry has the same number. Each posting is one entry with a number
 *   that is the same every time the file is made (so "warn me if a journal number is reused" catches a second
 *   import of the same file), at most 21 characters.
 * - Journal Date: the entry's date, in the company's date format, which the importer reads it in: MM/DD/YYYY (US
 *   companies) unless the game's QuickBooks date order is set to DD/MM/YYYY under Settings → Accounting.
 * - Account: the account's NAME as in the chart of accounts, with "Parent:Sub" for a sub-account; account numbers
 *   must be turned off while importing. Map each account to that name under Settings → Accounting.
 * - Debits / Credits: one of the two per line, the other empty; an entry's debits equal its credits.
 * - Description: the line's memo.
 * - Name: a customer or supplier. QuickBooks asks for one on an Accounts Payable (or Receivable) line: the payable
 *   lines carry the recipient, so map payable to a liability account, or create each recipient as a supplier
 *   under that name first.
 * - At most 1,000 rows in one file, its header among them. Intuit's help names no limit for journal entries; guides
 *   to this import report 1,000 rows a file as the most it takes. A batch whose entries take more is split into
 *   parts of whole entries, as Xero's file is (numbered files, `part=2`, ...), each a file the importer takes on its
 *   own. Import every part.
 */
export const QUICKBOOKS_MAX_LINES = 999;

export const QUICKBOOKS_COLUMNS: readonly ExportColumn[] = [
  { name: "Journal No", type: "text", description: "The entry; its lines share it." },
  {
    name: "Journal Date",
    type: "date",
    description: "The entry's date, MM/DD/YYYY, or DD/MM/YYYY where the game's QuickBooks date order says so.",
  },
  { name: "Account", type: "text", description: "The ledger account name mapped to the account." },
  { name: "Debits", type: "decimal", description: "Debit amount (empty on a credit line)." },
  { name: "Credits", type: "decimal", description: "Credit amount (empty on a debit line)." },
  { name: "Description", type: "text", description: "What the entry records." },
  { name: "Name", type: "text", description: "The recipient, on the payable lines." },
];

export function quickbooksRows(posting: Posting, context: JournalContext, dateOrder: QuickbooksDateOrder): ExportRow[] {
  const number = journalNumber(posting);
  const date = slashDate(posting.date, dateOrder);
  const recipient = recipientLabel(context.names, posting.entry.recipientPlayerId, { noColon: true });
  return posting.lines.map((line) => ({
    "Journal No": number,
    "Journal Date": date,
    Account: context.accounts[line.account].code,
    Debits: line.side === "debit" ? formatUsd(line.amount) : null,
    Credits: line.side === "credit" ? formatUsd(line.amount) : null,
    Description: `${posting.description}, ${recipient}`,
    Name: line.account === "payable" ? recipient : null,
  }));
}

/** How many files the batch's QuickBooks entries take (the window page links each), and the split's digest. */
export async function quickbooksSplit(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "batchId">,
): Promise<JournalSplit> {
  const dateOrder = await readQuickbooksDateOrder(db, target.gameId);
  return batchPostingsSplit(db, target, QUICKBOOKS_MAX_LINES, `dates:${dateOrder}`);
}

export const quickbooksJournalExport: ExportKindDefinition = {
  kind: "journal-quickbooks",
  title: "QuickBooks Online journal entries",
  importedBy: "QuickBooks Online's journal entry import",
  summary:
    "The batch's journal in QuickBooks Online's journal entry import format (Journal No, dates in the company's " +
    "order, mapped account names, debits and credits, the recipient on payable lines), at most 1,000 rows a file.",
  columns: QUICKBOOKS_COLUMNS,
  needsBatch: true,
  oneSnapshot: true,
  async check(db, target) {
    await checkJournalAccounts(db, target, { taxRate: false });
  },
  parts: quickbooksSplit,
  async *pages(db, target) {
    const context = await journalContext(db, target, { taxRate: false });
    const dateOrder = await readQuickbooksDateOrder(db, target.gameId);
    const entries = batchPostingsOfPart(db, target, QUICKBOOKS_MAX_LINES);
    yield* inPages(entries, 1_000, (posting) => quickbooksRows(posting, context, dateOrder));
  },
};
