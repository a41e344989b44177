import type { NormalisedPaymentResult } from "@/db/types";
import type { UnreadableRow } from "./formats/results";
import type { ResultFormat } from "./schemas";

/** What importing a provider's results would do, line by line (lib/payments/results-plan.ts makes it). */

export const VERDICTS = [
  "pay",
  "reject",
  "return",
  "pending",
  "already_applied",
  "unknown_reference",
  "amount_mismatch",
  "not_applicable",
  "cancelled_file",
] as const;
export type Verdict = (typeof VERDICTS)[number];
/** Verdicts that change something when applied. */
export const APPLYING: readonly Verdict[] = ["pay", "reject", "return", "pending"];
/** Verdicts listed for a person: never applied, each with what to do. */
export const LISTED: readonly Verdict[] = ["unknown_reference", "amount_mismatch", "not_applicable", "cancelled_file"];

export const listedCount = (counts: Record<Verdict, number>): number =>
  LISTED.reduce((n, verdict) => n + counts[verdict], 0);

export type PlanLine = {
  reference: string;
  outcome: NormalisedPaymentResult["outcome"];
  amount: string | null;
  currency: string | null;
  fee: string | null;
  transactionId: string | null;
  reason: string | null;
  verdict: Verdict;
  note: string;
  statementId: string | null;
  recipientPlayerId: number | null;
  fileId: string | null;
  method: string | null;
  /** What the file sent for it, in the result's currency. */
  expectedAmount: string | null;
  /** For a payment made: the day it is recorded as paid (paidOnFor). */
  paidOn: string | null;
  /** For a return: the payment it undoes, as recorded on the statement when planned (refused if it changed since). */
  recordedPayment: { reference: string | null; at: string | null } | null;
  result: NormalisedPaymentResult;
};

export type ResultsPlan = {
  format: ResultFormat;
  sha256: string;
  lines: PlanLine[];
  unreadable: UnreadableRow[];
  counts: Record<Verdict, number>;
};

/** The most lines of each kind a page is sent: every count covers them all. */
export const SHOWN_LINES = 500;

/**
 * The lines a page shows of a report (a month's report may hold 100,000): those listed for a person first-come up to
 * SHOWN_LINES, and as many of the others, in the report's order.
 */
export function linesToShow<L extends { verdict: Verdict }>(lines: readonly L[]): L[] {
  let listed = 0;
  let others = 0;
  return lines.filter((line) => (LISTED.includes(line.verdict) ? ++listed <= SHOWN_LINES : ++others <= SHOWN_LINES));
}
