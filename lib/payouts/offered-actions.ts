import { formatCount } from "@/lib/format";
import { money } from "@/lib/money";
import type { PayoutBatchStatus, PayoutStatementState } from "@/db/types";
import { hasRole, type Role } from "@/lib/auth/roles";
import { STATE_IN_WORDS } from "./state-words";

/**
 * Which payout actions a person can take, from the state of the batch and statement, their role, and who prepared and
 * approved the batch. One function for both sides: the pages render only what it allows (a blocked action is shown
 * disabled with its reason, an action that does not apply is not shown), and lib/payouts/batches.ts refuses with
 * the same reasons.
 *
 * A held statement never stays stuck: it is released (back to draft in a draft batch, back to approved in an
 * approved or paid batch) when nothing blocks it, or carried forward whole into the recipient's next statement,
 * which is the way out of a hold whose flags can no longer be overridden (a paid batch, a newer snapshot).
 */

export const STATEMENT_ACTIONS = ["approve", "unapprove", "hold", "release", "carry_forward", "mark_paid"] as const;
export type StatementAction = (typeof STATEMENT_ACTIONS)[number];

export const BATCH_ACTIONS = ["approve_unflagged", "approve_batch", "discard", "mark_all_paid"] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

/**
 * allowed: offer it. blocked: it applies to this state but this person cannot take it now; show it disabled with the
 * reason. not_applicable: nothing to offer in this state.
 */
export type Verdict =
  | { kind: "allowed" }
  | { kind: "blocked"; code: "two_person_rule" | "open_flags" | "incomplete"; reason: string }
  | { kind: "not_applicable"; reason: string };

/** One action offered on a statement, with whether this person may take it and why not. */
export type OfferedAction = { action: StatementAction; verdict: Verdict };

export type BatchContext = {
  role: Role;
  actorId: string;
  status: PayoutBatchStatus;
  /** The rule in force for the next step: the current setting while a draft, the batch's own once approved. */
  twoPersonRule: boolean;
  preparedById: string;
  approvedById: string | null;
};

export type StatementFacts = {
  state: PayoutStatementState;
  openFlags: number;
  /** How many of `openFlags` are the window's (they stand on every statement; overridden on the window's page). */
  windowFlags?: number;
  /** The statement's available balance (net attributed plus carried in), when known. */
  availableUsd?: string;
  /** Open flags raised since approval that stop a payment recorded by hand (flag-info.ts stopsPaymentByHand). */
  stopsPayment?: readonly string[];
  /**
   * The recipient's details in force are first details this person entered, which no payment has gone to yet (read
   * for held statements of an approved or paid batch under its two-person rule: lib/payouts/own-details.ts).
   */
  ownFirstDetails?: boolean;
};

/** A negative balance (the recipient owes it) is never held back: approved, it carries into the next payout. */
const owes = (statement: StatementFacts): boolean =>
  statement.availableUsd !== undefined && money(statement.availableUsd).isNegative();

/** Said where a refusal suggests holding payouts without knowing whose balance is negative. */
const OWED_NOT_HELD = "(a balance the recipient owes is not held: override its flags, and it carries forward)";

const ALLOWED: Verdict = { kind: "allowed" };
const na = (reason: string): Verdict => ({ kind: "not_applicable", reason });

/** The two-person rule, when in force, keeps the person who prepared a batch from approving it. */
export function twoPersonRuleBinds(rule: boolean, preparedById: string, actorId: string | undefined): boolean {
  return rule && actorId !== undefined && preparedById === actorId;
}

export const PREPARER_MAY_NOT_APPROVE =
  "Two-person rule: you prepared this batch, so another finance user must approve it.";

/**
 * Refused to a person approving a batch that pays first payout details they entered themselves, which no payment has
 * gone to yet: nobody else has seen them (the first details apply at once), so one person could type their own account
 * as a recipient's and approve its payment. `players`: the recipients, the first few named.
 */
export function ownFirstDetailsReason(players: readonly number[]): string {
  const named = players.slice(0, 3).join(", ") + (players.length > 3 ? " …" : "");
  const one = players.length === 1;
  const whose = one ? "recipient" : "recipients";
  const payouts = one ? "that payout" : "those payouts";
  return (
    `Two-person rule: you entered the first payout details of ${whose} ${named}, which no payment has gone to ` +
    `yet, so another finance user approves this batch (or hold ${payouts}).`
  );
}

export const OWN_FIRST_DETAILS_RELEASE =
  "Two-person rule: you entered this recipient's first payout details, which no payment has gone to yet, so another " +
  "finance user releases this hold once the batch is approved.";

const preparedIt = (batch: BatchContext): boolean =>
  twoPersonRuleBinds(batch.twoPersonRule, batch.preparedById, batch.actorId);

const twoPersonRule = (reason: string): Verdict => ({ kind: "blocked", code: "two_person_rule", reason });

function closedBatch(batch: BatchContext): Verdict | null {
  if (!hasRole(batch.role, "finance")) return na("Only finance changes payouts.");
  if (batch.status === "discarded") return na("The batch was discarded.");
  return null;
}

export function statementVerdict(action: StatementAction, batch: BatchContext, statement: StatementFacts): Verdict {
  const closed = closedBatch(batch);
  if (closed) return closed;
  const { state } = statement;
  const draftBatch = batch.status === "draft";
  const isState = na(`is ${STATE_IN_WORDS[state]}`);
  switch (action) {
    case "approve":
      if (!draftBatch) return na(`Statements are approved while the batch is a draft; this batch is ${batch.status}.`);
      if (state !== "draft") return isState;
      if (statement.openFlags > 0 && statement.openFlags === statement.windowFlags) {
        const n = statement.openFlags;
        return {
          kind: "blocked",
          code: "open_flags",
          reason:
            `${n === 1 ? "A flag on this window is" : `${n} flags on this window are`} open: find out why, then ` +
            `override ${n === 1 ? "it" : "them"} on the window's page.`,
        };
      }
      if (statement.openFlags > 0)
        return {
          kind: "blocked",
          code: "open_flags",
          reason: owes(statement)
            ? "Open flags: override them with a reason (a negative balance is not held: it carries forward)."
            : "Open flags: override them with a reason, or hold the payout.",
        };
      return ALLOWED;
    case "unapprove":
      if (!draftBatch) return na(`The batch is ${batch.status}; its statements can no longer go back to draft.`);
      return state === "approved" ? ALLOWED : isState;
    case "hold":
      if (owes(statement))
        return na("The recipient owes this balance: it is not held but carried forward against later payouts.");
      if (draftBatch) return state === "draft" || state === "approved" ? ALLOWED : isState;
      return state === "approved" || state === "returned" ? ALLOWED : isState;
    case "release":
      if (state !== "held") return isState;
      if (draftBatch) return ALLOWED;
      if (preparedIt(batch))
        return twoPersonRule(
          "Two-person rule: you prepared this batch, so someone else releases a hold once it is approved.",
        );
      // Held so that the batch could be approved without it (ownFirstDetailsReason): released by the same person, the
      // payment would go to details nobody else has seen.
      if (batch.twoPersonRule && statement.ownFirstDetails) return twoPersonRule(OWN_FIRST_DETAILS_RELEASE);
      if (statement.openFlags > 0) {
        return {
          kind: "blocked",
          code: "open_flags",
          reason:
            batch.status === "paid"
              ? "Open flags, and the batch is paid so they can no longer be overridden: " +
                "carry the balance forward instead."
              : "Open flags: override them first, or carry the balance forward.",
        };
      }
      return ALLOWED;
    case "carry_forward":
      if (draftBatch) return na("In a draft batch a held statement is released back to draft instead.");
      return state === "held" ? ALLOWED : isState;
    case "mark_paid":
      if (draftBatch) return na("The batch must be approved before it is paid.");
      if (state !== "approved" && state !== "returned") return isState;
      // A returned payment is owed again: it may be paid by hand (or put in a new payment file).
      if (statement.stopsPayment && statement.stopsPayment.length > 0)
        return {
          kind: "blocked",
          code: "open_flags",
          reason:
            `A flag raised since approval stops its payment (${statement.stopsPayment.join(", ")}): override it ` +
            "with a reason (paid before it, or checked), or hold the statement.",
        };
      return ALLOWED;
  }
}

export type BatchCounts = {
  draft: number;
  approved: number;
  held: number;
  total: number;
  /** Flags on the whole window not overridden: each stands on every statement, so none can be approved. */
  openWindowFlags?: number;
  /**
   * Recipients of a draft batch whose approved statement has an open flag of its own (raised since it was approved):
   * the batch cannot be approved while one stands (lib/payouts/batch-approval.ts).
   */
  approvedFlagged?: readonly number[];
  /** Every draft statement has an open flag of its own: approving the unflagged ones would approve none. */
  draftsAllFlagged?: boolean;
  /**
   * Recipients (the first few) whose approved statement has an open flag raised since approval that stops a payment
   * recorded by hand: "Mark approved paid" records nothing while one stands (lib/payouts/batch-approval.ts).
   */
  approvedBarred?: readonly number[];
  /**
   * Recipients whose approved statement pays first payout details this person entered, which no payment has gone to
   * yet (read under the two-person rule, for a draft batch): they may not approve it (ownFirstDetailsReason).
   */
  ownFirstDetails?: readonly number[];
};

/** Approval while a flag on the window stands open on every statement it would approve: blocked, or null. */
function heldByWindowFlags(counts: BatchCounts): Verdict | null {
  const flags = counts.openWindowFlags ?? 0;
  if (flags === 0 || counts.draft + counts.approved === 0) return null;
  return {
    kind: "blocked",
    code: "open_flags",
    reason:
      `${flags === 1 ? "A flag on this window blocks" : `${flags} flags on this window block`} the approval of ` +
      `its statements: find out why, then override ${flags === 1 ? "it" : "them"} on this page.`,
  };
}

/** Recording the approved statements paid while a flag stops one's payment: blocked, naming the first few. */
function paymentBarred(barred: readonly number[]): Verdict | null {
  if (barred.length === 0) return null;
  const named = barred.slice(0, 3).join(", ") + (barred.length > 3 ? " …" : "");
  const one = barred.length === 1;
  return {
    kind: "blocked",
    code: "open_flags",
    reason:
      `${one ? "An approved statement has a flag" : "Approved statements have flags"} raised since approval that ` +
      `${one ? "stops its" : "stop their"} payment (recipient ${named}): resolve or override ${one ? "it" : "each"} ` +
      "with a reason on the recipient's row, or hold the payout; then record the payment.",
  };
}

export function batchVerdict(action: BatchAction, batch: BatchContext, counts: BatchCounts): Verdict {
  const closed = closedBatch(batch);
  if (closed) return closed;
  switch (action) {
    case "approve_unflagged":
      if (batch.status !== "draft") return na(`The batch is ${batch.status}.`);
      if (counts.draft === 0) return na("No statement is in draft.");
      if (counts.draftsAllFlagged)
        return {
          kind: "blocked",
          code: "open_flags",
          reason:
            counts.draft === 1
              ? "The statement in draft has an open flag: override it on the recipient's row, or hold the payout " +
                `${OWED_NOT_HELD}.`
              : "Every statement in draft has an open flag: override the flags on the recipients' rows, or hold " +
                `their payouts ${OWED_NOT_HELD}.`,
        };
      return heldByWindowFlags(counts) ?? ALLOWED;
    case "approve_batch": {
      if (batch.status !== "draft") return na(`This batch is already ${batch.status}.`);
      if (preparedIt(batch)) return twoPersonRule(PREPARER_MAY_NOT_APPROVE);
      const own = counts.ownFirstDetails ?? [];
      if (batch.twoPersonRule && own.length > 0) return twoPersonRule(ownFirstDetailsReason(own));
      const flagged = heldByWindowFlags(counts);
      if (flagged) return flagged;
      if (counts.draft > 0) {
        return {
          kind: "blocked",
          code: "incomplete",
          reason:
            `${formatCount(counts.draft)} statement${counts.draft === 1 ? " is" : "s are"} ` +
            "still in draft: " +
            "approve or hold every statement first.",
        };
      }
      const flaggedNow = counts.approvedFlagged ?? [];
      if (flaggedNow.length > 0) {
        const named = flaggedNow.slice(0, 3).join(", ") + (flaggedNow.length > 3 ? " …" : "");
        const which =
          flaggedNow.length === 1 ? "An approved statement has" : `${flaggedNow.length} approved statements have`;
        return {
          kind: "blocked",
          code: "open_flags",
          reason:
            `${which} an open flag raised since it was approved (recipient ${named}): override it with a reason or ` +
            `hold the payout first ${OWED_NOT_HELD}.`,
        };
      }
      if (counts.total > 0 && counts.held === counts.total)
        return { kind: "blocked", code: "incomplete", reason: "Every statement is held: nothing would be approved." };
      return ALLOWED;
    }
    case "discard":
      return batch.status === "draft"
        ? ALLOWED
        : na(`Only a draft batch can be discarded; this one is ${batch.status}.`);
    case "mark_all_paid":
      if (batch.status !== "approved" && batch.status !== "paid")
        return na("The batch must be approved before it is paid.");
      if (counts.approved === 0) return na("No approved statement left to mark paid.");
      return paymentBarred(counts.approvedBarred ?? []) ?? ALLOWED;
  }
}

/** Every batch action's verdict for this person. */
export function batchVerdicts(batch: BatchContext, counts: BatchCounts): Record<BatchAction, Verdict> {
  return {
    approve_unflagged: batchVerdict("approve_unflagged", batch, counts),
    approve_batch: batchVerdict("approve_batch", batch, counts),
    discard: batchVerdict("discard", batch, counts),
    mark_all_paid: batchVerdict("mark_all_paid", batch, counts),
  };
}

/** The actions worth showing for a statement: allowed ones and blocked ones (with their reasons). */
export function offeredStatementActions(batch: BatchContext, statement: StatementFacts): OfferedAction[] {
  return STATEMENT_ACTIONS.map((action) => ({ action, verdict: statementVerdict(action, batch, statement) })).filter(
    (o) => o.verdict.kind !== "not_applicable",
  );
}

/**
 * The actions a bulk bar offers for the selected statements: an action allowed for at least one of them (the domain
 * skips the others, naming them), else blocked with the first reason found; actions that apply to none are left out.
 */
export function offersForSelection(batch: BatchContext, statements: readonly StatementFacts[]): OfferedAction[] {
  return STATEMENT_ACTIONS.flatMap((action): OfferedAction[] => {
    const verdicts = statements.map((s) => statementVerdict(action, batch, s));
    const allowed = verdicts.find((v) => v.kind === "allowed");
    if (allowed) return [{ action, verdict: allowed }];
    const blocked = verdicts.find((v) => v.kind === "blocked");
    return blocked ? [{ action, verdict: blocked }] : [];
  });
}
