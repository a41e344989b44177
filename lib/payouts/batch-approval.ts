import "server-only";
import type { ActingAs } from "@/core/actor";
import type { Db, DbOrTrx } from "@/db";
import { deleteCarriesInto } from "@/db/queries/payout-batches";
import { getPayoutBatchRow } from "@/db/queries/payout-ledger";
import { listDeductionsOfBatch, type LockedStatement } from "@/db/queries/payout-statements";
import type { PayoutStatementState } from "@/db/tables/payouts";
import { auditTwoPersonRefusals } from "@/lib/audit";
import { AppError, TwoPersonRefusal } from "@/lib/errors";
import { formatCount } from "@/lib/format";
import { formatUsd, money, sumMoney } from "@/lib/money";
import { stopsPaymentByHand } from "./flag-info";
import { type BatchFlags, openFlagsOf, overrideOf } from "./flags";
import { ownFirstDetailsReason, PREPARER_MAY_NOT_APPROVE, twoPersonRuleBinds } from "./offered-actions";
import { recipientsOnOwnFirstDetails } from "./own-details";
import type { PaymentMethod } from "./payment-methods";
import { readPayoutSettings } from "./settings";
import { staleDeductionRefusal } from "./build-statements";
import { describeFlags, type Skipped, transition } from "./transition";
import { TRANSITIONS } from "./transition-table";
import { refusePaidOnBefore } from "./paid-on";

type Target = { gameId: string; batchId: string };

/**
 * Refuses, audited as the approval's own refusal is, a person the two-person rule keeps from approving this batch: its
 * preparer, or, when `paying` names the recipients whose statements the batch would pay once its drafts are settled,
 * the person who entered first details of one of them that no payment has gone to yet. For a caller that approves its
 * statements first (the command line), so that nothing changes before the refusal.
 */
export async function refuseApprovalUnderTwoPersonRule(
  db: Db,
  params: Target,
  as: ActingAs,
  paying?: readonly number[],
): Promise<void> {
  const refused = {
    actor: as.actor,
    via: as.via,
    action: TRANSITIONS.approve_batch.audit,
    gameId: params.gameId,
    target: params.batchId,
  };
  await auditTwoPersonRefusals(db, refused, async () => {
    const batch = await getPayoutBatchRow(db, params);
    const rule = (await readPayoutSettings(db)).twoPersonRule;
    if (batch && twoPersonRuleBinds(rule, batch.prepared_by_id, as.actor?.id))
      throw new TwoPersonRefusal(PREPARER_MAY_NOT_APPROVE);
    if (batch && paying && paying.length > 0)
      await refuseOwnFirstDetails(db, params, as, rule, ["draft", "approved"], paying);
  });
}

/** Under the two-person rule, refuses a person approving a batch that pays first details they entered themselves. */
async function refuseOwnFirstDetails(
  db: DbOrTrx,
  params: Target,
  as: ActingAs,
  twoPersonRule: boolean,
  states: readonly PayoutStatementState[],
  recipientPlayerIds?: readonly number[],
): Promise<void> {
  if (!twoPersonRule || !as.actor) return;
  const own = await recipientsOnOwnFirstDetails(db, { ...params, actorId: as.actor.id, states, recipientPlayerIds });
  if (own.length > 0) throw new TwoPersonRefusal(ownFirstDetailsReason(own));
}

/**
 * Approves a draft batch: every statement approved or held, no approved statement with an open flag, and (two-person
 * rule) the approver is not the preparer. The figures are frozen to the snapshot version the batch was built on;
 * approved statements with nothing to pay are closed as carried at once.
 */
export async function approvePayoutBatch(
  db: Db,
  params: Target & { drawnAtRevision?: string },
  as: ActingAs,
): Promise<{ approved: number; carried: number; held: number; payableUsd: string }> {
  let twoPersonRule = false;
  const step = await transition(
    db,
    "approve_batch",
    {
      gameId: params.gameId,
      batchId: params.batchId,
      drawnAt: drawnAt(
        params.drawnAtRevision,
        "The batch changed after this page was drawn (statements approved, held or released, or a flag overridden): " +
          "its figures are shown again; look at them before approving.",
      ),
      statements: {},
      check: async ({ trx, batch, statements, changed, flags }) => {
        // The rule in force at approval time applies (an admin may have switched it since the batch was prepared).
        twoPersonRule = (await readPayoutSettings(trx)).twoPersonRule;
        if (twoPersonRuleBinds(twoPersonRule, batch.prepared_by_id, as.actor?.id)) {
          throw new TwoPersonRefusal(PREPARER_MAY_NOT_APPROVE);
        }
        const drafts = statements.filter((r) => r.state === "draft").length;
        if (drafts > 0)
          throw new AppError(
            "CONFLICT",
            `${drafts} statement${drafts === 1 ? " is" : "s are"} still in draft: ` +
              "approve or hold every statement first.",
          );
        // Read under the batch lock: what the approved statements pay is settled.
        await refuseOwnFirstDetails(trx, params, as, twoPersonRule, ["approved"]);
        const deductions = await listDeductionsOfBatch(trx, { batchId: batch.id, snapshotId: batch.snapshot_id });
        const stale = staleDeductionRefusal(deductions);
        if (stale) throw new AppError("CONFLICT", stale);
        // Read under the batch lock, on this transaction: a flag raised while approval waited for the lock counts.
        // The window's own first (raised since the page was drawn): holding a statement does not clear it.
        const windowOpen = flags ? flags.window.filter((f) => !overrideOf(f, flags.overrides)) : [];
        if (windowOpen.length > 0 && changed.length > 0)
          throw new AppError(
            "CONFLICT",
            `A flag on this window blocks the approval of its statements (${describeFlags(windowOpen)}): find out ` +
              "why, then override it on the window's page.",
          );
        for (const r of changed) {
          const open = flags ? openFlagsOf(flags, Number(r.recipient_player_id), r.recipient_flags) : [];
          if (open.length > 0) {
            throw new AppError(
              "CONFLICT",
              `Recipient ${r.recipient_player_id} has open flags (${describeFlags(open)}): ` +
                (money(r.available_usd).isNegative()
                  ? "override them with a reason (a balance the recipient owes is not held: it carries forward)."
                  : "override them with a reason or hold the payout."),
            );
          }
        }
        if (changed.length === 0 && statements.length > 0 && statements.every((r) => r.state === "held")) {
          throw new AppError("CONFLICT", "Every statement is held: nothing would be approved.");
        }
      },
      batchColumns: ({ now }) => ({
        approved_by_id: as.actor?.id ?? null,
        approved_by_email: as.actor?.email ?? null,
        approved_at: now,
        two_person_rule: twoPersonRule,
      }),
      audit: ({ batch, statements, changed }) => ({
        detail: {
          preparedBy: batch.prepared_by_email,
          snapshotId: batch.snapshot_id,
          snapshotVersion: batch.snapshot_version,
          ...summary(statements, changed),
          twoPersonRule,
        },
      }),
    },
    as,
  );
  return summary(step.statements, step.changed);
}

function drawnAt(revision: string | undefined, message: string): { revision: string; message: string } | undefined {
  return revision === undefined ? undefined : { revision, message };
}

function summary(
  statements: readonly { state: string }[],
  changed: readonly { to: string; payable_usd: string }[],
): { approved: number; carried: number; held: number; payableUsd: string } {
  const carried = changed.filter((r) => r.to === "carried").length;
  return {
    approved: changed.length - carried,
    carried,
    held: statements.filter((r) => r.state === "held").length,
    payableUsd: formatUsd(sumMoney(changed.map((r) => r.payable_usd))),
  };
}

/** How a statement chosen to be marked paid has moved since the page was drawn. */
const MOVED: Partial<Record<PayoutStatementState, string>> = {
  paid: "recorded paid",
  in_payment: "in a payment file",
  held: "held",
  draft: "back in draft",
  carried: "carried forward",
};

/**
 * Statements chosen as paid are paid outside the desk already: one a colleague recorded paid, put in a payment file or
 * held since the page was drawn is named, and nothing is recorded, rather than the others recorded and it left unsaid
 * (paid twice, or owed and paid again).
 */
function refuseChosenNoLongerOwed(statements: readonly LockedStatement[], skipped: readonly Skipped[]): void {
  if (skipped.length === 0) return;
  const stateOf = new Map(statements.map((s) => [s.id, s.state]));
  const named = skipped.slice(0, 5).map((s) => {
    const state = stateOf.get(s.id);
    return `${s.recipientPlayerId} ${(state && MOVED[state]) ?? s.reason}`;
  });
  const more = skipped.length > 5 ? `; ${formatCount(skipped.length - 5)} more` : "";
  throw new AppError(
    "CONFLICT",
    `Nothing was recorded: statements chosen changed since this page was drawn (${named.join("; ")}${more}). ` +
      "If you paid them, look at each first: one recorded paid or in a payment file is paid there too. Choose again " +
      "from the page as it is now.",
  );
}

/**
 * Refuses to record as paid a statement with an open flag raised since approval that says not to pay it yet (a renewal
 * disputed, details nobody confirmed with the recipient, a required tax form missing), as a payment file leaves it out:
 * the page's "Mark approved paid" would otherwise record it among the others, and its statement name the unconfirmed
 * account. Overridden with a reason (paid before the flag, or checked), it is recorded. A payment that came back is
 * paid again by hand as the remedy (by another route than the details it came back from), so that flag does not
 * refuse it.
 */
function refusePaymentBarred(changed: readonly LockedStatement[], flags: BatchFlags): void {
  const barred = changed.flatMap((c) => {
    const bars = openFlagsOf(flags, Number(c.recipient_player_id), c.recipient_flags).filter((f) =>
      stopsPaymentByHand(f.flag),
    );
    return bars.length > 0 ? [`${c.recipient_player_id} (${describeFlags(bars)})`] : [];
  });
  if (barred.length === 0) return;
  const more = barred.length > 5 ? `; ${formatCount(barred.length - 5)} more` : "";
  const one = barred.length === 1;
  throw new AppError(
    "CONFLICT",
    `Nothing was recorded: ${one ? "a statement has a flag" : "statements have flags"} raised since approval that ` +
      `${one ? "stops" : "stop"} its payment (recipient ${barred.slice(0, 5).join("; ")}${more}). Resolve or ` +
      "override each with a reason (if it was paid before the flag, say so), or hold it; then record the payment " +
      "again.",
  );
}

/**
 * Records payment of approved statements of an approved batch (the ones given, or all of them): the date paid, the
 * method and the external reference. The amount paid is the statement's payable, never typed. Returns the ids of the
 * statements it paid.
 */
export async function markStatementsPaid(
  db: Db,
  params: Target & {
    ids?: string[];
    paidOn: string;
    method: PaymentMethod;
    reference: string;
    /** The batch's revision the page was drawn at: the statements it showed as approved are the ones paid. */
    drawnAtRevision?: string;
  },
  as: ActingAs,
): Promise<{ paid: number; amountUsd: string; statementIds: string[] }> {
  const reference = params.reference.trim();
  if (reference.length === 0)
    throw new AppError("INVALID_INPUT", "Give the external reference of the payment.", { field: "reference" });
  const { paidOn, method } = params;
  const amountOf = (rows: readonly { payable_usd: string }[]) => formatUsd(sumMoney(rows.map((r) => r.payable_usd)));
  const step = await transition(
    db,
    "mark_paid",
    {
      gameId: params.gameId,
      batchId: params.batchId,
      statements: params.ids ?? { state: "approved" },
      drawnAt: drawnAt(
        params.drawnAtRevision,
        "The statements to pay changed after this page was drawn (a payment file, its results or a return moved " +
          "some): the figures are shown again; look at them before recording payment.",
      ),
      payment: { paidOn, method, reference },
      check: ({ changed, skipped, statements, batch, flags }) => {
        if (params.ids) refuseChosenNoLongerOwed(statements, skipped);
        if (changed.length === 0) throw new AppError("CONFLICT", "No approved statement left to mark paid.");
        if (flags) refusePaymentBarred(changed, flags);
        // Not the approval: a payment made outside the desk before it (a studio recording past payouts) is real.
        refusePaidOnBefore(paidOn, batch.window_start, "the window began");
      },
      eventDetail: (r) => ({ paidOn, method, reference, amountUsd: formatUsd(r.payable_usd) }),
      audit: ({ changed }) => ({
        idempotencyKey: reference,
        detail: { paid: changed.length, amountUsd: amountOf(changed), paidOn, method, reference },
      }),
    },
    as,
  );
  return { paid: step.changed.length, amountUsd: amountOf(step.changed), statementIds: step.changed.map((c) => c.id) };
}

/** Discards a draft batch (to prepare it again, e.g. from a newer snapshot): the balances it took are freed. */
export async function discardPayoutBatch(db: Db, params: Target & { reason: string }, as: ActingAs): Promise<void> {
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the draft is discarded (at least 5 characters).", { field: "reason" });
  let carriesFreed = 0;
  await transition(
    db,
    "discard",
    {
      ...params,
      apply: async ({ trx, batch }) => {
        carriesFreed = await deleteCarriesInto(trx, batch.id);
      },
      batchColumns: ({ now }) => ({
        discarded_at: now,
        discarded_by_email: as.actor?.email ?? null,
        discard_reason: reason,
      }),
      audit: () => ({ detail: { reason, carriesFreed } }),
    },
    as,
  );
}
