import "server-only";
import { createHash } from "node:crypto";
import { formatExact, money } from "@/core/money";
import type { Db } from "@/db";
import { type ItemByReference, listItemsByReference, listRecordedResultKeys } from "@/db/queries/payment-flow";
import type { NormalisedPaymentResult } from "@/db/types";
import type { PaymentResult } from "./formats/results";
import { readResults } from "./formats/read";
import { APPLYING, type PlanLine, type ResultsPlan, VERDICTS, type Verdict } from "./plan-line";
import type { ResultFormat } from "./schemas";
import { refuseWholeFileReport } from "./whole-file-report";
import { paidOnFor, refusePaidOnBefore, utcToday } from "@/lib/payouts/paid-on";

/**
 * Importing a provider's results (README "Paying recipients"). Each result is matched to a payment-file item of the
 * batch by its reference, and its amount checked against what the file sent. The plan says, line by line, what the
 * import would do; a dry run returns it and changes nothing. Unknown references, amount mismatches and results that do
 * not fit the statement's state are listed and never applied. Applying records each result once (the same file
 * imported twice changes nothing: every line is then "already applied").
 *
 * - paid: the statement in payment in that file is paid (today, the provider's transaction id, its fee kept).
 * - rejected: back to approved with the reason, owed again; a payment_returned flag holds the recipient until their
 *   details are updated.
 * - returned: the payment recorded on the statement, made by that file, came back: the statement is returned, owed
 *   again (the ledger credits it back). Money back for an item never reported paid reads as a rejection.
 *
 * A result naming an item of a cancelled file is never applied: the file was cancelled here, yet the provider may have
 * executed it. A payment it reports is listed as "cancelled_file" with what to do, since the statement is then owed
 * again here (or in another file, or paid since) while the recipient has the money.
 */

export {
  APPLYING,
  LISTED,
  listedCount,
  type PlanLine,
  type ResultsPlan,
  VERDICTS,
  type Verdict,
} from "./plan-line";

/**
 * The amount the file sent for an item, in the currency the result speaks of; null when it cannot be compared, ""
 * when the result speaks of a currency the file did not pay in.
 */
function expectedFor(item: ItemByReference, currency: string | null): string | null {
  if (item.method === "wise") {
    // Wise is sent a fixed USD amount and converts it at its own rate: only a USD figure can be checked.
    if (currency === "USD" || (currency === null && item.currency === "USD")) return item.amountUsd;
    return currency === null || currency === item.currency ? null : "";
  }
  if (currency === null || currency === item.currency) return item.amountCurrency;
  return currency === "USD" ? item.amountUsd : "";
}

/**
 * Whether a result's amount is what was sent: a Wise target amount is what arrived after Wise's fee, so the fee is
 * added back; a source amount is the amount sent itself, fee included.
 */
function isAmountSent(result: PaymentResult, item: ItemByReference, expected: string): boolean {
  const amount = money(result.amount ?? "0").abs();
  if (amount.equals(money(expected))) return true;
  return (
    item.method === "wise" &&
    result.afterFee === true &&
    result.fee !== null &&
    amount.plus(money(result.fee)).equals(money(expected))
  );
}

/**
 * The key a result is recorded once under: statement, outcome and the provider's transaction id; without one, the
 * file it answers ("f:"), or for a reference sent in more than one file (files made before each filing had a
 * reference of its own) the statement alone ("any").
 */
export function resultKey(
  statementId: string,
  outcome: string,
  transactionId: string | null,
  fileId: string | null,
): string {
  return `${statementId}|${outcome}|${transactionId !== null ? `t:${transactionId}` : fileId ? `f:${fileId}` : "any"}`;
}

/** The file each recorded result was read for, by resultKey (a result without a transaction id under two keys). */
function recordedResults(keys: Awaited<ReturnType<typeof listRecordedResultKeys>>): Map<string, string> {
  const recorded = new Map<string, string>();
  for (const k of keys) {
    recorded.set(resultKey(k.statementId, k.outcome, k.transactionId, k.fileId), k.fileId);
    if (k.transactionId === null) recorded.set(resultKey(k.statementId, k.outcome, null, null), k.fileId);
  }
  return recorded;
}

function judge(
  result: PaymentResult,
  item: ItemByReference | undefined,
  /** The file each recorded result was read for (recordedResults). */
  recorded: Map<string, string>,
  /** The reference was sent in more than one file of the statement. */
  shared: boolean,
  /** It was sent in more than one file, one of them cancelled with the item open. */
  sentInCancelled: boolean,
): Pick<PlanLine, "verdict" | "note" | "expectedAmount"> {
  if (!item)
    return {
      verdict: "unknown_reference",
      note: "no payment file of this batch has this reference",
      expectedAmount: null,
    };
  const expected = expectedFor(item, result.currency);
  if (expected === "")
    return {
      verdict: "amount_mismatch",
      note: `currency ${result.currency} is not the file's ${item.currency}`,
      expectedAmount: null,
    };
  if (result.amount !== null && expected !== null && !isAmountSent(result, item, expected))
    return {
      verdict: "amount_mismatch",
      note: `amount ${formatExact(money(result.amount).abs())} differs from the ${expected} sent`,
      expectedAmount: expected,
    };
  const key = resultKey(item.statementId, result.outcome, result.providerTransactionId, shared ? null : item.fileId);
  const before = recorded.get(key);
  if (before !== undefined) {
    // Without a transaction id, a result for a reference sent in several files is known by its statement and outcome
    // alone: one recorded for an earlier file of a statement now in payment in another cannot be told from its own.
    const elsewhere =
      shared &&
      result.providerTransactionId === null &&
      item.statementState === "in_payment" &&
      before !== item.statementFileId;
    return {
      // Listed for a person when it may be the answer for the file the statement is in now: nothing applies it.
      verdict: elsewhere ? "not_applicable" : "already_applied",
      note: elsewhere
        ? "imported before for an earlier file of this statement, and the line has no transaction id: if it is " +
          "the answer for the file the statement is in now, cancel that file, then " +
          (result.outcome === "paid"
            ? "mark the statement paid by hand with the provider's reference"
            : "hold the recipient until their details are fixed, so that no new file takes them")
        : "imported before",
      expectedAmount: expected,
    };
  }
  // An item settled before its file was cancelled was answered by the provider then: its results read as usual.
  if (item.fileStatus === "cancelled" && !item.settled)
    return { ...fromCancelledFile(result, item), expectedAmount: expected };
  if (sentInCancelled)
    return {
      verdict: result.outcome === "paid" ? "cancelled_file" : "not_applicable",
      note:
        "this reference was also sent in a payment file cancelled here (files made before each filing had a " +
        "reference of its own): which file this answers cannot be told. Check with the provider, then record it on " +
        "the statement by hand",
      expectedAmount: expected,
    };
  const checked =
    result.amount === null
      ? " (no amount given to check)"
      : expected === null
        ? " (amount converted by the provider)"
        : "";
  const inThisFile = item.statementState === "in_payment" && item.statementFileId === item.fileId;
  switch (result.outcome) {
    case "pending":
      // Held at the provider only while the statement is in payment in this file: an older report read after the
      // payment's result (or the file's cancel) changes nothing.
      return inThisFile
        ? { verdict: "pending", note: "still pending at the provider: nothing changes", expectedAmount: expected }
        : {
            verdict: "not_applicable",
            note: `pending at the provider, but the statement is ${item.statementState}, not in payment in this file`,
            expectedAmount: expected,
          };
    case "paid":
      return inThisFile
        ? { verdict: "pay", note: `paid${checked}`, expectedAmount: expected }
        : {
            verdict: "not_applicable",
            note: `the statement is ${item.statementState}, not in payment in this file`,
            expectedAmount: expected,
          };
    case "rejected":
      return inThisFile
        ? { verdict: "reject", note: `rejected: owed again${checked}`, expectedAmount: expected }
        : {
            verdict: "not_applicable",
            note: `the statement is ${item.statementState}, not in payment in this file`,
            expectedAmount: expected,
          };
    case "returned":
      // Money back for a payment never reported paid: nothing reached the recipient, as for a rejection. Not for a
      // reference sent in several files (which filing it answers cannot be told); one sent in this file alone answers
      // this filing, also after an earlier payment (by hand) was recorded as returned.
      if (inThisFile && !shared)
        return {
          verdict: "reject",
          note: `returned before it was reported paid: nothing was paid, owed again${checked}`,
          expectedAmount: expected,
        };
      if (item.statementState !== "paid")
        return {
          verdict: "not_applicable",
          note: `the statement is ${item.statementState}, not paid`,
          expectedAmount: expected,
        };
      // A statement keeps its reference in every file: once a payment of it came back and was recorded by hand, a
      // report may list that return again after it was paid anew. Only a return naming the payment now recorded
      // undoes it; any other is left for a person to judge.
      if (
        item.returnedByHand &&
        (!result.providerTransactionId || result.providerTransactionId !== item.paymentReference)
      )
        return {
          verdict: "not_applicable",
          note:
            "an earlier payment of this statement came back (recorded by hand) and it was paid again since: this may " +
            "be that return; if the new payment came back, record it as returned on the statement",
          expectedAmount: expected,
        };
      // Only the payment recorded on the statement can come back: a return of an earlier filing (a transfer cancelled
      // and refunded, then paid by a later file) or of a payment since returned undoes nothing. The payment recorded
      // is this file's when a paid result of it names that payment, or when the line names its transaction id (paid by
      // hand with the provider's id).
      if (
        !item.paidByThisItem &&
        (result.providerTransactionId === null || result.providerTransactionId !== item.paymentReference)
      )
        return {
          verdict: "not_applicable",
          note:
            `the payment recorded on the statement (${item.paymentReference ?? "no reference"}) was not made by this ` +
            "file: this return answers an earlier attempt, and nothing changes. If the payment now recorded came " +
            "back, record it as returned on the statement",
          expectedAmount: expected,
        };
      return { verdict: "return", note: `returned after payment: owed again${checked}`, expectedAmount: expected };
  }
}

/** A result for an item of a file cancelled here: listed, never applied. */
function fromCancelledFile(result: NormalisedPaymentResult, item: ItemByReference): Pick<PlanLine, "verdict" | "note"> {
  const cancelled = "the provider reports this from a payment file cancelled here";
  const txid = result.providerTransactionId;
  const markByHand = `mark the statement paid by hand with the provider's reference${txid ? ` ${txid}` : ""}`;
  switch (result.outcome) {
    case "paid":
      if (item.statementState === "paid" && txid !== null && txid === item.paymentReference)
        return { verdict: "already_applied", note: "recorded: the statement was marked paid with this transaction id" };
      return {
        verdict: "cancelled_file",
        note:
          item.statementState === "approved" || item.statementState === "returned"
            ? `paid: ${cancelled}, and the statement is owed again, so a new file would pay it twice: ${markByHand}`
            : item.statementState === "in_payment"
              ? `paid: ${cancelled}, and the statement is in another payment file now. Stop that file at the ` +
                `provider if you still can, cancel it here, then ${markByHand}; if it was paid too, the recipient ` +
                "has been paid twice"
              : item.statementState === "paid"
                ? `paid: ${cancelled}, and the statement was paid since: the recipient has been paid twice`
                : `paid: ${cancelled}, and the statement is ${item.statementState}: the recipient has the money`,
      };
    case "returned":
      return {
        verdict: "not_applicable",
        note: `returned: ${cancelled}. If its payment was recorded on the statement, record it as returned there`,
      };
    case "rejected":
      return { verdict: "not_applicable", note: `rejected: ${cancelled}; nothing was paid, nothing changes` };
    case "pending":
      return {
        verdict: "not_applicable",
        note: `still pending: ${cancelled}. Stop it at the provider, or import its result once it is paid`,
      };
  }
}

/** What importing `text` would do; changes nothing. */
export async function planResults(
  db: Db,
  params: { gameId: string; batchId: string; format: ResultFormat; text: string; paidOn?: string },
): Promise<ResultsPlan> {
  const today = utcToday();
  const readout = readResults(params.format, params.text);
  if (readout.wholeFileReport) await refuseWholeFileReport(db, params, readout.wholeFileReport);
  const references = [...new Set(readout.results.map((r) => r.reference))];
  const items = await listItemsByReference(db, { gameId: params.gameId, batchId: params.batchId, references });
  const byReference = new Map<string, ItemByReference>();
  for (const item of items) {
    const known = byReference.get(item.reference);
    // The file the statement is in now wins; otherwise the newest file with this reference.
    if (!known || (item.statementFileId === item.fileId && known.statementFileId !== known.fileId))
      byReference.set(item.reference, item);
  }
  const keys = await listRecordedResultKeys(db, [...new Set(items.map((i) => i.statementId))]);
  const recorded = recordedResults(keys);
  const filesOf = new Map<string, Set<string>>();
  const openWhenCancelled = new Set<string>();
  for (const item of items) {
    filesOf.set(item.reference, (filesOf.get(item.reference) ?? new Set()).add(item.fileId));
    if (item.fileStatus === "cancelled" && !item.settled) openWhenCancelled.add(item.reference);
  }
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const seen = new Set<string>();
  const lines = readout.results.map((result): PlanLine => {
    const item = byReference.get(result.reference);
    const shared = (filesOf.get(result.reference)?.size ?? 0) > 1;
    let judged = judge(result, item, recorded, shared, shared && openWhenCancelled.has(result.reference));
    // Only a line that would apply marks its statement's outcome as seen: an earlier filing's line that applies
    // nothing (imported before, a cancelled file) must not hide the current filing's answer listed after it. Seen by
    // what the line would do: "rejected" and "returned" before any payment are both a rejection, applied once.
    const once = `${item?.statementId ?? result.reference}|${judged.verdict}`;
    if (APPLYING.includes(judged.verdict)) {
      if (seen.has(once))
        judged = { ...judged, verdict: "not_applicable", note: "the same result appears twice in this file" };
      else seen.add(once);
    }
    return {
      reference: result.reference,
      outcome: result.outcome,
      amount: result.amount,
      currency: result.currency,
      fee: result.fee,
      transactionId: result.providerTransactionId,
      reason: result.reason,
      ...judged,
      statementId: item?.statementId ?? null,
      recipientPlayerId: item ? Number(item.recipientPlayerId) : null,
      fileId: item?.fileId ?? null,
      method: item?.method ?? null,
      paidOn: judged.verdict === "pay" ? paidOnFor(params.paidOn, item?.executionDate ?? null, today) : null,
      recordedPayment:
        judged.verdict === "return" && item
          ? { reference: item.paymentReference, at: item.paidAt ? item.paidAt.toISOString() : null }
          : null,
      result,
    };
  });
  // A day given for the payments cannot come before the file that paid them was made.
  if (params.paidOn)
    for (const l of lines) {
      const item = l.verdict === "pay" ? byReference.get(l.reference) : undefined;
      if (item) refusePaidOnBefore(params.paidOn, item.fileCreatedAt, "its payment file was made");
    }
  // A statement this file reports paid is paid by it first; a rejection or money back for the same item in the same
  // file is listed (the payment stands; a return is applied when the file is imported again, once it is recorded).
  const paidHere = new Set(lines.filter((l) => l.verdict === "pay").map((l) => l.statementId));
  const settledHere = new Set(lines.filter((l) => l.verdict === "reject").map((l) => l.statementId));
  for (const l of lines) {
    // Reported settled further on in the same file: the pending line is an earlier state of that payment.
    if (l.verdict === "pending" && (paidHere.has(l.statementId) || settledHere.has(l.statementId))) {
      l.verdict = "not_applicable";
      l.note = "this file also reports its outcome: the outcome is recorded, not the pending state before it";
    }
    if (l.verdict === "reject" && paidHere.has(l.statementId)) {
      l.verdict = "not_applicable";
      l.note =
        l.outcome === "returned"
          ? "this file also reports the payment made: it is recorded first; import the file again to record its return"
          : "this file also reports it paid: the payment stands";
    }
    counts[l.verdict] += 1;
  }
  const sha256 = createHash("sha256").update(params.text, "utf8").digest("hex");
  return { format: params.format, sha256, lines, unreadable: readout.unreadable, counts };
}

export function groupByFile(lines: readonly PlanLine[]): Map<string, PlanLine[]> {
  const out = new Map<string, PlanLine[]>();
  for (const l of lines) {
    if (!l.fileId) continue;
    const group = out.get(l.fileId);
    // Added to in place: copying the group for every line took a minute for 100,000 lines of one file.
    if (group) group.push(l);
    else out.set(l.fileId, [l]);
  }
  return out;
}
