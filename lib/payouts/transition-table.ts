import type { LockedBatch } from "@/db/queries/payout-batches";
import type { LockedStatement } from "@/db/queries/payout-statements";
import type { PayoutBatchStatus, PayoutStatementState } from "@/db/types";
import type { AnalyzedTable } from "@/db/queries/statistics";
import { money } from "@/lib/money";
import type { StatementAction } from "./offered-actions";

/** The workflow of payout batches, one entry per operation; lib/payouts/transition.ts runs them. */

export type TransitionRule = {
  /** The audit action written for it. */
  audit: string;
  /** Batch statuses it runs from; any other is refused with `refused(status)` (CONFLICT). */
  batchFrom: readonly PayoutBatchStatus[];
  refused: (status: PayoutBatchStatus) => string;
  /** The batch status it sets, if it changes the batch. */
  batchTo?: PayoutBatchStatus;
  /** Statement states it moves from: other statements are skipped (`is <state>`). None: batch-only. */
  from?: readonly PayoutStatementState[];
  /** The per-statement check the pages use (two-person rule, open flags, batch status). */
  verdict?: StatementAction;
  /** Reads the batch's flags (on this transaction, after the lock) for the verdict and the caller's check. */
  readsFlags?: boolean;
  /** Where a changed statement goes. */
  to?: (statement: LockedStatement, batch: LockedBatch) => PayoutStatementState;
  /** The events written per changed statement; by default one event of kind `event` with the new state. */
  event?: string;
  events?: (to: PayoutStatementState) => { kind: string; stateAfter: PayoutStatementState }[];
  /** Closes with nothing paid and the whole available balance carried out. */
  carriesWhole?: boolean;
  /** Tables besides the statements' that its change writes a row to per statement (their statistics kept current). */
  writes?: readonly AnalyzedTable[];
};

export const CLOSED_STATES: readonly PayoutStatementState[] = ["paid", "carried"];
const LIVE: readonly PayoutBatchStatus[] = ["draft", "approved", "paid"];
const discarded = () => "This batch was discarded.";
/** A returned payment is owed again: it may be paid by hand, or go into a new file, like an approved one. */
const OWED: readonly PayoutStatementState[] = ["approved", "returned"];
/** Runs on a batch that is not discarded. */
const WHILE_LIVE = { batchFrom: LIVE, refused: discarded } as const;
const nothingToPay = (s: LockedStatement) => money(s.payable_usd).isZero();

/** A step of a filed or paid payment: runs while the batch is approved or paid; a discarded batch refuses it. */
function paymentStep(
  audit: string,
  from: PayoutStatementState,
  to: PayoutStatementState,
  event: string,
  writes: readonly AnalyzedTable[],
): TransitionRule {
  return { audit, batchFrom: ["approved", "paid"], refused: discarded, from: [from], to: () => to, event, writes };
}

/** A provider's result recorded per statement, its file item settled. */
const RESULT: readonly AnalyzedTable[] = ["payment_result", "payment_file_item"];
/** The same, the money back recorded too. */
const RESULT_BACK: readonly AnalyzedTable[] = [...RESULT, "payment_return"];

export const TRANSITIONS = {
  approve: {
    audit: "payouts.statement.approve",
    batchFrom: ["draft"],
    refused: (s) => `Statements are approved while the batch is a draft; this batch is ${s}.`,
    from: ["draft"],
    verdict: "approve",
    readsFlags: true,
    to: () => "approved",
    event: "approved",
  },
  unapprove: {
    audit: "payouts.statement.unapprove",
    batchFrom: ["draft"],
    refused: (s) => `The batch is ${s}; its statements can no longer go back to draft.`,
    from: ["approved"],
    verdict: "unapprove",
    to: () => "draft",
    event: "unapproved",
  },
  hold: {
    audit: "payouts.statement.hold",
    ...WHILE_LIVE,
    // A returned payment may be held too (the recipient not answering): then carried forward, its window can close.
    from: ["draft", "approved", "returned"],
    verdict: "hold",
    to: () => "held",
    event: "held",
  },
  release: {
    audit: "payouts.statement.release",
    ...WHILE_LIVE,
    from: ["held"],
    verdict: "release",
    readsFlags: true,
    // Back to draft in a draft batch; once approved back to approved (to be paid), or carried with nothing to pay.
    to: (s, batch) => (batch.status === "draft" ? "draft" : nothingToPay(s) ? "carried" : "approved"),
    event: "released",
  },
  carry_forward: {
    audit: "payouts.statement.carry_forward",
    ...WHILE_LIVE,
    from: ["held"],
    verdict: "carry_forward",
    // Its open flags go with the balance: the statement taking it in is flagged (lib/payouts/build-statements.ts).
    readsFlags: true,
    to: () => "carried",
    event: "carried_forward",
    carriesWhole: true,
  },
  mark_paid: {
    audit: "payouts.statement.paid",
    batchFrom: ["approved", "paid"],
    refused: (s) => (s === "draft" ? "The batch must be approved before it is paid." : `The batch is ${s}.`),
    from: OWED,
    verdict: "mark_paid",
    // A flag raised since approval that stops a payment refuses it (lib/payouts/batch-approval.ts).
    readsFlags: true,
    to: () => "paid",
    event: "paid",
  },
  // A payment file moves the approved statements it pays to in_payment; nothing is paid until results say so.
  file_payment: {
    audit: "payouts.payment_file.create",
    batchFrom: ["approved"],
    refused: (s) => `Payment files are made from an approved batch; this batch is ${s}.`,
    from: OWED,
    readsFlags: true,
    to: () => "in_payment",
    event: "in_payment",
    writes: ["payment_file_item"],
  },
  // Cancelling a live file returns its statements to approved, payable again.
  cancel_file: paymentStep("payouts.payment_file.cancel", "in_payment", "approved", "file_cancelled", [
    "payment_file_item",
  ]),
  // Results: a payment the provider made closes the statement as paid.
  payment_succeeded: paymentStep("payouts.payment.paid", "in_payment", "paid", "paid", RESULT),
  // Results: a payment the provider rejected or that failed is owed again (approved) with its reason.
  payment_rejected: paymentStep("payouts.payment.rejected", "in_payment", "approved", "payment_rejected", RESULT_BACK),
  // A paid payment came back (from the provider's results, or undone by hand): owed again.
  return_payment: paymentStep("payouts.payment.returned", "paid", "returned", "payment_returned", RESULT_BACK),
  approve_batch: {
    audit: "payouts.batch.approve",
    batchFrom: ["draft"],
    refused: (s) => `This batch is already ${s}.`,
    batchTo: "approved",
    from: ["approved"],
    readsFlags: true,
    // Approved statements with nothing to pay close as carried at once.
    to: (s) => (nothingToPay(s) ? "carried" : "approved"),
    events: (to) => [
      { kind: "batch_approved", stateAfter: "approved" },
      ...(to === "carried" ? [{ kind: "carried", stateAfter: "carried" as const }] : []),
    ],
  },
  override_flag: {
    audit: "payouts.flag.override",
    batchFrom: ["draft", "approved"],
    refused: (s) => `The batch is ${s}.`,
  },
  discard: {
    audit: "payouts.batch.discard",
    batchFrom: ["draft"],
    refused: (s) => `Only a draft batch can be discarded; this one is ${s}.`,
    batchTo: "discarded",
  },
} satisfies Record<string, TransitionRule>;

export type TransitionName = keyof typeof TRANSITIONS;
