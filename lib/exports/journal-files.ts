import "server-only";
import { createHash } from "node:crypto";
import type { Db } from "@/db";
import { batchRecipientNames, type RecipientNames } from "@/db/queries/exports";
import { type AccountMap, type MappedAccount, readAccountMap, requireMapped } from "@/lib/accounting/accounts";
import type { AccountingAccountKey } from "@/lib/accounting/schemas";
import { batchHasReturnedPayment } from "@/db/queries/payment-flow";
import { iterateLedgerEntries } from "@/lib/payouts/ledger";
import { type Posting, type PostedKind, postedAccounts, postingOf } from "./postings";
import type { ResolvedTarget } from "./types";

/**
 * What the ledger import files (Xero, QuickBooks Online) share: the batch's postings, one journal each, in ledger
 * order, with the game's account mapping and the recipients' names.
 */

const PAGE_SIZE = 2_000;

export type JournalContext = {
  gameId: string;
  accounts: Record<AccountingAccountKey, MappedAccount>;
  names: RecipientNames;
};

/**
 * Refuses a file while an account it posts to is unmapped (or, for Xero, has no tax rate name): expense, payable and
 * clearing always, returns when the batch has a returned payment.
 */
export async function checkJournalAccounts(
  db: Db,
  target: { gameId: string; batchId?: string | null },
  options: { taxRate: boolean },
): Promise<Record<AccountingAccountKey, MappedAccount>> {
  const map: AccountMap = await readAccountMap(db, { gameId: target.gameId });
  const hasReturns = target.batchId
    ? await batchHasReturnedPayment(db, { gameId: target.gameId, batchId: target.batchId })
    : false;
  return requireMapped(map, postedAccounts(hasReturns), { taxRate: options.taxRate, gameId: target.gameId });
}

export async function journalContext(
  db: Db,
  target: ResolvedTarget,
  options: { taxRate: boolean },
): Promise<JournalContext> {
  const { batchId, run } = target;
  if (!batchId) throw new Error("a journal file needs a payout batch");
  const read = async (): Promise<JournalContext> => {
    const accounts = await checkJournalAccounts(db, target, options);
    const names = await batchRecipientNames(db, { gameId: target.gameId, batchId });
    return { gameId: target.gameId, accounts, names };
  };
  if (!run) return read();
  // Every part of a run is written with the same names and accounts, read once from the run's one reading.
  const key = `journal-context:${options.taxRate}`;
  let context = run.state.get(key) as Promise<JournalContext> | undefined;
  if (!context) {
    context = read();
    run.state.set(key, context);
  }
  return context;
}

/** The batch's postings, each a journal of its own, in ledger order (recipient, then accrual, reversal, payment). */
export async function* batchPostings(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "batchId">,
): AsyncGenerator<Posting> {
  if (!target.batchId) throw new Error("a journal file needs a payout batch");
  for await (const entry of iterateLedgerEntries(db, {
    gameId: target.gameId,
    batchId: target.batchId,
    pageSize: PAGE_SIZE,
  })) {
    const posting = postingOf(entry);
    if (posting) yield posting;
  }
}

const NUMBER_PREFIX: Record<PostedKind, string> = {
  accrual: "A",
  reversal: "R",
  payment: "P",
  payment_returned: "RP",
  payment_undone: "UP",
};

/**
 * A journal's number, the same every time the file is made and one per ledger entry: the kind's letters, 12 hex
 * digits of the statement id and 6 of a hash of the entry's id ("A-0f8c3a525b1e9c04d2", at most 21 characters, what
 * QuickBooks Online keeps). A statement paid, returned and paid again has a journal per payment and per return.
 */
export function journalNumber(posting: Posting): string {
  const statement = posting.entry.statementId.replace(/-/g, "").slice(0, 12);
  const entry = createHash("sha256").update(posting.entry.entryId).digest("hex").slice(0, 6);
  return `${NUMBER_PREFIX[posting.kind]}-${statement}${entry}`;
}

/**
 * "Ada (player 800)", or "Player 800" when the service did not resolve the name. `noColon`: for a name QuickBooks
 * keeps as a supplier or customer, where a colon joins a parent and its sub-customer and is refused: every colon is
 * written " - " ("Clan - Wolves (player 802)", "Player 800 - @ninja").
 */
export function recipientLabel(names: RecipientNames, playerId: number, options?: { noColon: true }): string {
  let name = names.get(playerId)?.name?.replace(/\s+/g, " ").trim();
  if (options?.noColon) name = name?.replace(/\s*:\s*/g, " - ").trim();
  if (!name) return `Player ${playerId}`;
  // A name a spreadsheet would run as a formula ("@ninja", "-=Sniper=-") comes after the id: the ledger imports the
  // cell as written, so it is never given the apostrophe that neutralises a formula (lib/exports/csv.ts). A formula
  // after a semicolon (a cell separator in some spreadsheets' locales) gets its apostrophe when the cell is written.
  const after = options?.noColon ? " -" : ":";
  return /^[=+\-@'\t\r]/.test(name) ? `Player ${playerId}${after} ${name}` : `${name} (player ${playerId})`;
}

/**
 * The journals of one part of a file split at `maxLines` lines, whole journals only: a journal that would cross
 * the limit starts the next part. Parts are numbered from 1; the same input always splits the same way.
 */
export async function* journalsOfPart<T>(
  journals: AsyncIterable<T>,
  linesOf: (journal: T) => number,
  maxLines: number,
  part: number,
): AsyncGenerator<T> {
  let current = 1;
  let used = 0;
  for await (const journal of journals) {
    const lines = linesOf(journal);
    if (lines > maxLines) throw new Error(`a journal of ${lines} lines does not fit a file of ${maxLines}`);
    if (used + lines > maxLines) {
      current++;
      used = 0;
    }
    used += lines;
    if (current === part) yield journal;
    else if (current > part) return;
  }
}

/** How a file is split into parts: how many, and a digest of which journals go where. */
export type JournalSplit = { parts: number; split: string };

/**
 * How many parts `journalsOfPart` splits the journals into (at least 1: an empty file is one part), and the split's
 * digest: 16 hex digits of a SHA-256 over what every part is written with (`writtenWith`: the mapped accounts, a date
 * order) and every journal's id and line count, in file order. A posting recorded later (a payment, a return) can move
 * journals from one part to the next, and a mapping changed between two parts' downloads would post one batch to two
 * accounts; the digest then changes, so a part asked for under an earlier listing's digest is refused rather than
 * repeating, skipping or posting apart a journal.
 */
export async function splitJournals<T>(
  journals: AsyncIterable<T>,
  linesOf: (journal: T) => number,
  idOf: (journal: T) => string,
  maxLines: number,
  writtenWith: string,
): Promise<JournalSplit> {
  const hash = createHash("sha256");
  hash.update(`${writtenWith}\n`);
  let parts = 1;
  let used = 0;
  for await (const journal of journals) {
    const lines = linesOf(journal);
    if (used + lines > maxLines) {
      parts++;
      used = 0;
    }
    used += lines;
    hash.update(`${idOf(journal)}:${lines}\n`);
  }
  return { parts, split: hash.digest("hex").slice(0, 16) };
}

/**
 * How many files of at most `maxLines` lines the batch's postings take, one journal each, and the split's digest, over
 * the game's account mapping and `writtenWith` (what else the files are written with) too.
 */
export async function batchPostingsSplit(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "batchId">,
  maxLines: number,
  writtenWith = "",
): Promise<JournalSplit> {
  const accounts = JSON.stringify(await readAccountMap(db, { gameId: target.gameId }));
  return splitJournals(batchPostings(db, target), linesOfPosting, journalNumber, maxLines, `${accounts}${writtenWith}`);
}

/**
 * The batch's postings in part `part` of its files of at most `maxLines` lines: read from the start on their own, or in
 * a run, from where the run's part before stopped.
 */
export function batchPostingsOfPart(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "batchId" | "part" | "run">,
  maxLines: number,
): AsyncGenerator<Posting> {
  const { run } = target;
  if (!run) return journalsOfPart(batchPostings(db, target), linesOfPosting, maxLines, target.part);
  let parts = run.state.get("postings") as PartsInTurn<Posting> | undefined;
  if (!parts) {
    parts = new PartsInTurn(batchPostings(db, target), linesOfPosting, maxLines);
    run.state.set("postings", parts);
  }
  return parts.part(target.part);
}

/**
 * The parts `journalsOfPart` splits journals into, asked one after another (1, 2, 3 ...) from one pass over them: a
 * journal that would cross the limit is kept for the next part. Split as journalsOfPart and splitJournals split.
 */
export class PartsInTurn<T> {
  private readonly source: AsyncIterator<T>;
  private next = 1;
  private carried: { journal: T } | null = null;

  constructor(
    journals: AsyncIterable<T>,
    private readonly linesOf: (journal: T) => number,
    private readonly maxLines: number,
  ) {
    this.source = journals[Symbol.asyncIterator]();
  }

  async *part(part: number): AsyncGenerator<T> {
    if (part !== this.next) throw new Error(`part ${part} asked for where part ${this.next} comes next`);
    this.next++;
    let used = 0;
    const carried = this.carried;
    this.carried = null;
    if (carried) {
      used = this.linesOf(carried.journal);
      yield carried.journal;
    }
    for (;;) {
      const step = await this.source.next();
      if (step.done) return;
      const lines = this.linesOf(step.value);
      if (lines > this.maxLines) throw new Error(`a journal of ${lines} lines does not fit a file of ${this.maxLines}`);
      if (used + lines > this.maxLines) {
        this.carried = { journal: step.value };
        return;
      }
      used += lines;
      yield step.value;
    }
  }
}

const linesOfPosting = (posting: Posting) => posting.lines.length;

const MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** "2026-04-03" as "03 Apr 2026": a day no importer can read in the wrong order, whatever its region's settings. */
export function monthNameDate(isoDate: string): string {
  const [y, m, d] = isoDate.split("-");
  return `${d} ${MONTH_NAMES[Number(m) - 1]} ${y}`;
}

/** "2026-04-03" as "03/04/2026" (day first) or "04/03/2026" (month first). */
export function slashDate(isoDate: string, order: "dmy" | "mdy"): string {
  const [y, m, d] = isoDate.split("-");
  return order === "dmy" ? `${d}/${m}/${y}` : `${m}/${d}/${y}`;
}
