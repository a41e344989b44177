import "server-only";
import type Decimal from "decimal.js";
import type { AccountingAccountKey } from "@/lib/accounting/schemas";
import { windowDaysText } from "@/core/time";
import { money } from "@/lib/money";
import type { LedgerEntry } from "@/lib/payouts/ledger";

/**
 * How a ledger entry posts to the general ledger: the one place the journal, Xero and QuickBooks files take their
 * debits and credits from. The entry's amount is the signed change in what is owed to the recipient: a rise credits
 * payable and debits the other account, a fall debits payable and credits the other account, so every posting
 * balances by construction. Carries (carry_in, carry_out, rollover) move a balance between statements of one
 * recipient and post nothing.
 *
 * | kind             | amount | debit    | credit   |
 * |------------------|--------|----------|----------|
 * | accrual          | +      | expense  | payable  |
 * | reversal         | −      | payable  | expense  |
 * | payment          | −      | payable  | clearing |
 * | payment_returned | +      | returns  | payable  |
 * | payment_undone   | +      | clearing | payable  |
 *
 * A returned payment is money the provider sent back: it is owed to the recipient again (payable credited) and the
 * money that came back sits in the returns account (debited) until the bank statement is reconciled against it. The
 * payment it undoes keeps its own posting (payable / clearing): the money did leave, and clearing is matched to that
 * outgoing bank line; the return is a second bank line, matched to returns. A payment recorded by mistake and undone
 * never left: its undoing posts back to clearing, which nets to nothing with no bank line to match. One rule for every
 * file.
 */
export const POSTED = {
  accrual: "expense",
  reversal: "expense",
  payment: "clearing",
  payment_returned: "returns",
  payment_undone: "clearing",
} as const satisfies Partial<Record<LedgerEntry["kind"], AccountingAccountKey>>;
export type PostedKind = keyof typeof POSTED;

export const POSTING_DESCRIPTIONS: Record<PostedKind, string> = {
  accrual: "Revenue share earned",
  reversal: "Revenue share reversed by refunds",
  payment: "Revenue share paid",
  payment_returned: "Revenue share payment returned",
  payment_undone: "Revenue share payment undone (recorded by mistake)",
};

/** The accounts every batch's files post to; returns joins when the batch has a returned payment. */
export const POSTED_ACCOUNTS: readonly AccountingAccountKey[] = ["expense", "payable", "clearing"];

/** The accounts a batch's files post to, given whether it has a returned payment. */
export function postedAccounts(hasReturns: boolean): readonly AccountingAccountKey[] {
  return hasReturns ? [...POSTED_ACCOUNTS, POSTED.payment_returned] : POSTED_ACCOUNTS;
}

export type PostingLine = { account: AccountingAccountKey; side: "debit" | "credit"; amount: Decimal };

export type Posting = {
  entry: LedgerEntry;
  kind: PostedKind;
  /**
   * The accounting date, YYYY-MM-DD (UTC): the batch's approval; for a payment, the recorded payment date, or the
   * approval's day when that is later (a person behind UTC records the day before; a payment made outside the desk
   * before its batch was approved): a payment never posts before the earnings it pays (`postingDay`).
   */
  date: string;
  /** "Revenue share earned: window 2026-03-01 to 2026-03-31": the window's first and last days (UTC). */
  description: string;
  /** Debit lines first; debits equal credits. */
  lines: PostingLine[];
};

export function isPosted(kind: string): kind is PostedKind {
  return kind in POSTED;
}

export function postingOf(entry: LedgerEntry): Posting | null {
  if (!isPosted(entry.kind)) return null;
  const kind = entry.kind;
  const amount = money(entry.amountUsd);
  if (amount.isZero()) return null;
  const other = POSTED[kind];
  const [debit, credit]: [AccountingAccountKey, AccountingAccountKey] = amount.isPositive()
    ? [other, "payable"]
    : ["payable", other];
  const size = amount.abs();
  return {
    entry,
    kind,
    date: postingDay(entry),
    description: `${POSTING_DESCRIPTIONS[kind]}: window ${windowDaysText(entry.windowStart, entry.windowEnd)}`,
    lines: [
      { account: debit, side: "debit", amount: size },
      { account: credit, side: "credit", amount: size },
    ],
  };
}

/**
 * The day an entry posts on. A payment: its recorded day, or its accrual's when that is later. A return or an undoing:
 * the day it was recorded, or the payment's own posting day when that is later (a person ahead of UTC records a
 * payment on their tomorrow, and may undo it the same UTC day). So nothing posts before what it reverses.
 */
function postingDay(entry: LedgerEntry): string {
  const recorded = entry.at.slice(0, 10);
  if (!entry.paidOn) return recorded;
  const paid = laterDay(entry.paidOn, entry.accruedOn);
  if (entry.kind === "payment") return paid;
  if (entry.kind === "payment_returned" || entry.kind === "payment_undone") return laterDay(recorded, paid);
  return recorded;
}

/** The later of two days, YYYY-MM-DD. */
function laterDay(a: string, b: string): string {
  return a < b ? b : a;
}
