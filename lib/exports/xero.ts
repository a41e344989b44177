import "server-only";
import type { Db } from "@/db";
import { formatUsd } from "@/lib/money";
import type { ExportColumn, ExportRow } from "./csv";
import {
  batchPostingsOfPart,
  batchPostingsSplit,
  checkJournalAccounts,
  type JournalSplit,
  type JournalContext,
  journalContext,
  journalNumber,
  recipientLabel,
  monthNameDate,
} from "./journal-files";
import { inPages } from "./payouts";
import type { Posting } from "./postings";
import type { ExportKindDefinition, ResolvedTarget } from "./types";

/**
 * Xero manual journals, in the CSV of Xero's import template (Accounting → Manual Journals → Import): its header as
 * the downloaded template spells it, an asterisk marking each mandatory column, all ten columns. Rules Xero's help
 * ("Import multiple manual journals") documents, and how this file keeps each:
 *
 * - Narration is mandatory; rows with the same Narration and Date are the lines of one journal. Each posting is
 *   its own journal, and its Narration carries the journal number, so no two journals share one.
 * - Date is mandatory, dd/mm/yyyy or dd mmm yyyy: written dd mmm yyyy (03 Apr 2026), read alike in every region.
 * - Description is optional, per line: the recipient.
 * - AccountCode is mandatory: the code from the chart of accounts ("200", not "200 - Sales"): the code mapped to the
 *   account under Settings → Accounting.
 * - TaxRate is mandatory: the full tax rate name as in Xero's tax settings ("No GST", "Tax Exempt"): the tax rate
 *   mapped with the account; an account mapped without one refuses the file.
 * - Amount is mandatory: positive is a debit, negative a credit. A journal's amounts add up to zero. A manual
 *   journal is in the organisation's base currency; these amounts are USD, so the organisation's base currency must
 *   be USD (README, Accounting).
 * - TrackingName1 / TrackingOption1: a tracking category and its option; here the category "Game" and the game's
 *   id, so a studio with several games reports by game.
 * - At most 300 lines in one file, its header counted (Xero's "up to 300 lines in one template file" does not say
 *   whether the header is one: counted, a file is never refused for it). A batch whose journals take more is split
 *   into parts of whole journals (numbered files, `part=1`, `part=2`, ...): each part is a CSV Xero imports on its
 *   own, as the template is, so nothing needs unpacking first. Import every part; the window page lists them all.
 *
 * Imported journals arrive as drafts in Xero: review, then post them.
 */

/** Journal lines a file: 300 lines with the header. */
export const XERO_MAX_LINES = 299;
export const XERO_TRACKING_NAME = "Game";

export const XERO_COLUMNS: readonly ExportColumn[] = [
  { name: "*Narration", type: "text", description: "The journal: what it records, the recipient, its number." },
  { name: "*Date", type: "date", description: "The journal's date, dd mmm yyyy (03 Apr 2026)." },
  { name: "Description", type: "text", description: "The line: the recipient." },
  { name: "*AccountCode", type: "text", description: "The ledger account code mapped to the account." },
  { name: "*TaxRate", type: "text", description: "The tax rate name mapped with the account." },
  { name: "*Amount", type: "decimal", description: "USD. Positive for a debit, negative for a credit." },
  { name: "TrackingName1", type: "text", description: `The tracking category: "${XERO_TRACKING_NAME}".` },
  { name: "TrackingOption1", type: "text", description: "The game's id." },
  { name: "TrackingName2", type: "text", description: "Empty (the template's second tracking category)." },
  { name: "TrackingOption2", type: "text", description: "Empty." },
];

export function xeroRows(posting: Posting, context: JournalContext): ExportRow[] {
  const recipient = recipientLabel(context.names, posting.entry.recipientPlayerId);
  const narration = `${posting.description}, ${recipient}, journal ${journalNumber(posting)}`;
  // Xero reads "dd/mm/yyyy" or "dd mmm yyyy"; a US organisation enters dates month first, so only the month's name
  // keeps 03/04 from being read as 4 March there.
  const date = monthNameDate(posting.date);
  return posting.lines.map((line) => {
    const mapped = context.accounts[line.account];
    const amount = line.side === "debit" ? line.amount : line.amount.negated();
    return {
      "*Narration": narration,
      "*Date": date,
      Description: recipient,
      "*AccountCode": mapped.code,
      "*TaxRate": mapped.taxRate,
      "*Amount": formatUsd(amount),
      TrackingName1: XERO_TRACKING_NAME,
      TrackingOption1: context.gameId,
      TrackingName2: "",
      TrackingOption2: "",
    };
  });
}

/** How many files the batch's Xero journals take (the window page lists a link for each), and the split's digest. */
export function xeroSplit(db: Db, target: Pick<ResolvedTarget, "gameId" | "batchId">): Promise<JournalSplit> {
  return batchPostingsSplit(db, target, XERO_MAX_LINES);
}

export const xeroJournalExport: ExportKindDefinition = {
  kind: "journal-xero",
  title: "Xero manual journals",
  importedBy: "Xero's manual journal import",
  summary:
    "The batch's journal in Xero's manual journal import format (dd mmm yyyy dates, signed amounts, mapped account " +
    "codes and tax rates, tracking by game), at most 300 lines a file.",
  columns: XERO_COLUMNS,
  needsBatch: true,
  oneSnapshot: true,
  async check(db, target) {
    await checkJournalAccounts(db, target, { taxRate: true });
  },
  parts: xeroSplit,
  async *pages(db, target) {
    const context = await journalContext(db, target, { taxRate: true });
    const journals = batchPostingsOfPart(db, target, XERO_MAX_LINES);
    yield* inPages(journals, 500, (posting) => xeroRows(posting, context));
  },
};
