import "server-only";
import { closedWindowRefusal } from "@/lib/accounting/close";
import { randomUUID } from "node:crypto";
import type { ActingAs } from "@/core/actor";
import type { Db, DbOrTrx } from "@/db";
import { findOverlappingBatch, insertBatch } from "@/db/queries/payout-batches";
import { holdPayoutsOfGame } from "./game-lock";
import {
  insertCarries,
  insertStatementEvents,
  insertStatements,
  listSnapshotRecipientsForStatements,
  listUntakenCarries,
} from "@/db/queries/payout-statements";
import { getLatestSnapshot, getSnapshot } from "@/db/queries/snapshots";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { formatUsd, sumMoney } from "@/lib/money";
import { formatWindow, type TimeWindow, windowToQuery } from "@/lib/time";
import { buildStatements } from "./build-statements";
import { readPayoutSettings } from "./settings";
import { type Changed, type Skipped, type TransitionStep, transition } from "./transition";
import { refreshStatisticsAfterBulkWrite } from "@/lib/statistics";

/**
 * The payout workflow of one window:
 *
 *   prepare (finance) -> statements in draft -> approve / hold each (bulk) -> approve the batch (a second finance user
 *   when the two-person rule is on) -> mark paid (date, method, external reference).
 *
 * Statements' figures are computed once, at preparation, from one snapshot version; approving the batch freezes them
 * (a database trigger refuses any change of a figure afterwards). Every change after preparation is one transition of
 * lib/payouts/transition.ts (lock, allowed states, events, audit line).
 */

export { PAYMENT_METHOD_LABELS, PAYMENT_METHODS, type PaymentMethod } from "./payment-methods";

export type PrepareResult = {
  batchId: string;
  statements: number;
  payableUsd: string;
  carriedIn: number;
  snapshotVersion: number;
};

/**
 * Why no payout batch may be prepared for the window now, or null: a closed window overlaps it, or a batch (not
 * discarded) already covers part of it. The window page says so instead of offering the button.
 */
export async function prepareRefusal(
  db: DbOrTrx,
  params: { gameId: string; window: TimeWindow },
): Promise<string | null> {
  const { gameId, window } = params;
  const closed = await closedWindowRefusal(db, { gameId, window });
  if (closed) return closed;
  const overlapping = await findOverlappingBatch(db, {
    gameId,
    start: new Date(window.startMs),
    end: new Date(window.endMs),
  });
  if (!overlapping) return null;
  const other = { startMs: overlapping.window_start.getTime(), endMs: overlapping.window_end.getTime() };
  const same = other.startMs === window.startMs && other.endMs === window.endMs;
  const batch = `${overlapping.status === "approved" ? "an" : "a"} ${overlapping.status} payout batch`;
  if (!same)
    return (
      `${batch.replace(/^a/, "A")} already covers part of this window (${formatWindow(other)}); paying both would ` +
      "pay the same renewals twice."
    );
  return overlapping.status === "draft"
    ? "This window already has a draft payout batch; discard the draft to prepare it again."
    : `This window already has ${batch}: a window is prepared once, and its statements are paid from that batch.`;
}

/**
 * Prepares the batch of a window from its latest snapshot version (or the one given). Refused while another live
 * batch covers any part of the window: an overlap would pay the same renewals twice. Statements are built by
 * buildStatements (carried balances taken in, minimum payout roll-over).
 */
export async function preparePayoutBatch(
  db: Db,
  params: { gameId: string; window: TimeWindow; snapshotId?: string },
  as: ActingAs,
): Promise<PrepareResult> {
  const snapshot = params.snapshotId
    ? await getSnapshot(db, { gameId: params.gameId, snapshotId: params.snapshotId })
    : await getLatestSnapshot(db, { gameId: params.gameId, window: params.window });
  if (!snapshot) throw new AppError("NOT_FOUND", `No snapshot of ${formatWindow(params.window)} yet: take one first.`);
  if (snapshot.window.startMs !== params.window.startMs || snapshot.window.endMs !== params.window.endMs) {
    throw new AppError("INVALID_INPUT", "That snapshot is of another window.", { field: "snapshotId" });
  }
  const batchId = randomUUID();
  const { gameId, window } = params;

  const prepared = await db.transaction().execute(async (trx) => {
    await holdPayoutsOfGame(trx, gameId);
    const refusal = await prepareRefusal(trx, { gameId, window });
    if (refusal) throw new AppError("CONFLICT", refusal);
    const settings = await readPayoutSettings(trx);
    await insertBatch(trx, {
      id: batchId,
      game_id: gameId,
      window_start: new Date(window.startMs),
      window_end: new Date(window.endMs),
      snapshot_id: snapshot.id,
      snapshot_version: snapshot.version,
      status: "draft",
      min_payout_usd: settings.minPayoutUsd,
      two_person_rule: settings.twoPersonRule,
      prepared_by_id: as.actor?.id ?? "",
      prepared_by_email: as.actor?.email ?? "",
    });
    const carries = await listUntakenCarries(trx, gameId);
    const recipients = await listSnapshotRecipientsForStatements(trx, snapshot.id);
    const built = buildStatements({
      recipients: recipients.map((r) => ({
        recipient: r.recipient_player_id,
        resolved: r.resolved,
        email: r.player_email,
        name: r.player_name,
        renewals: r.renewal_count,
        subscriptions: r.subscription_count,
        reversals: r.reversal_count,
        grossUsd: r.gross_attributed_usd,
        reversedUsd: r.reversed_attributed_usd,
        reversedBeforeUsd: r.reversed_before_usd,
        hasUnavailable: Boolean(r.has_unavailable),
        reversalReportedAgain: Boolean(r.reversal_reported_again),
      })),
      carries: carries.map((c) => ({
        fromStatementId: c.id,
        recipient: c.recipient_player_id,
        amountUsd: c.carry_out_usd,
        resolved: c.resolved,
        email: c.player_email,
        name: c.player_name,
        openFlags: c.open_flags ?? [],
      })),
      minPayoutUsd: settings.minPayoutUsd,
      newId: randomUUID,
    });
    await insertStatements(
      trx,
      built.statements.map((s) => ({
        id: s.id,
        batch_id: batchId,
        game_id: gameId,
        recipient_player_id: s.recipient,
        in_snapshot: s.inSnapshot,
        resolved: s.resolved,
        player_email: s.email,
        player_name: s.name,
        renewal_count: s.renewals,
        subscription_count: s.subscriptions,
        reversal_count: s.reversals,
        gross_attributed_usd: s.grossUsd,
        reversed_attributed_usd: s.reversedUsd,
        reversed_before_usd: s.reversedBeforeUsd,
        net_attributed_usd: s.netAttributedUsd,
        carried_in_usd: s.carriedInUsd,
        available_usd: s.availableUsd,
        payable_usd: s.payableUsd,
        carry_out_usd: s.carryOutUsd,
        recipient_flags: JSON.stringify(s.flags),
        state: "draft",
        state_changed_by_email: as.actor?.email ?? null,
      })),
    );
    await insertCarries(
      trx,
      built.carries.map((c) => ({
        from_statement_id: c.fromStatementId,
        to_statement_id: c.toStatementId,
        amount_usd: c.amountUsd,
      })),
    );
    await insertStatementEvents(
      trx,
      built.statements.map((s) => ({
        statementId: s.id,
        batchId,
        gameId,
        recipient: s.recipient,
        kind: "prepared",
        stateAfter: "draft",
      })),
      as.actor,
    );
    await recordAudit(trx, {
      actor: as.actor,
      via: as.via,
      action: "payouts.batch.prepare",
      gameId,
      target: batchId,
      outcome: "succeeded",
      detail: {
        window: windowToQuery(window),
        snapshotId: snapshot.id,
        snapshotVersion: snapshot.version,
        statements: built.statements.length,
        payableUsd: built.payableUsd,
        carriesTaken: built.carries.length,
        minPayoutUsd: settings.minPayoutUsd,
        twoPersonRule: settings.twoPersonRule,
      },
    });
    return {
      batchId,
      statements: built.statements.length,
      payableUsd: built.payableUsd,
      carriedIn: built.carries.length,
      snapshotVersion: snapshot.version,
    };
  });
  await refreshStatisticsAfterBulkWrite(
    db,
    ["payout_statement", "payout_statement_event", "payout_carry"],
    prepared.statements,
  );
  return prepared;
}

/** What a statement change did, and the batch's revision once it is counted. */
export type BulkResult = { changed: number; skipped: Skipped[]; revision: string };

/** The statements a change left as it was, for its audit line: ids and why, not names (the first 200). */
const auditedSkips = (skipped: readonly Skipped[]) =>
  skipped.slice(0, 200).map(({ id, recipientPlayerId, reason }) => ({ id, recipientPlayerId, reason }));

type Target = { gameId: string; batchId: string };
type StatementSelection = { ids?: string[]; all?: "draft_unflagged" };
/** The batch's revision the change was decided on (the command line's approval chains its steps on it). */
type DrawnAt = { drawnAtRevision?: string };

function drawnAt(revision: string | undefined) {
  return revision === undefined
    ? undefined
    : {
        revision,
        message:
          "The batch changed after it was shown (statements approved, held or released, or a flag overridden): " +
          "look at it again before going on.",
      };
}

const recipientsOf = (rows: readonly Changed[]) => rows.slice(0, 200).map((r) => Number(r.recipient_player_id));
const bulk = (step: TransitionStep): BulkResult => ({
  changed: step.changed.length,
  skipped: step.skipped,
  revision: step.revision,
});

function requireReason(reason: string, why: string): string {
  const trimmed = reason.trim();
  if (trimmed.length < 5)
    throw new AppError("INVALID_INPUT", `Say why ${why} (at least 5 characters).`, { field: "reason" });
  return trimmed;
}

/**
 * Approves draft statements of a draft batch: the ones given, or every draft statement without an open flag.
 * A statement with an open flag is skipped with the reason (never approved quietly).
 */
export async function approveStatements(
  db: Db,
  params: Target & StatementSelection & DrawnAt,
  as: ActingAs,
): Promise<BulkResult> {
  const step = await transition(
    db,
    "approve",
    {
      gameId: params.gameId,
      batchId: params.batchId,
      drawnAt: drawnAt(params.drawnAtRevision),
      statements: params.all === "draft_unflagged" ? { state: "draft" } : (params.ids ?? []),
      audit: ({ changed, skipped }) => ({
        detail: { approved: changed.length, recipients: recipientsOf(changed), skipped: auditedSkips(skipped) },
      }),
    },
    as,
  );
  return bulk(step);
}

/** Puts approved statements of a draft batch back to draft. */
export async function unapproveStatements(db: Db, params: Target & { ids: string[] }, as: ActingAs) {
  const step = await transition(
    db,
    "unapprove",
    {
      ...params,
      statements: params.ids,
      audit: ({ changed }) => ({ detail: { changed: changed.length, recipients: recipientsOf(changed) } }),
    },
    as,
  );
  return bulk(step);
}

type ReasonedChange = Target & DrawnAt & { ids: string[]; reason: string };

/** A statement change with a reason, audited as `<countKey>: n, reason, recipients, skipped`. */
async function reasonedTransition(
  db: Db,
  name: "hold" | "release" | "carry_forward",
  params: ReasonedChange & { reason: string },
  as: ActingAs,
  more: { countKey: string; extra?: (changed: Changed[]) => Record<string, unknown> } & Partial<
    Pick<Parameters<typeof transition>[2], "eventDetail">
  >,
): Promise<BulkResult> {
  const { reason } = params;
  const step = await transition(
    db,
    name,
    {
      gameId: params.gameId,
      batchId: params.batchId,
      drawnAt: drawnAt(params.drawnAtRevision),
      statements: params.ids,
      holdReason: reason,
      eventDetail: more.eventDetail ?? (() => ({ reason })),
      audit: ({ changed, skipped }) => ({
        detail: {
          [more.countKey]: changed.length,
          ...more.extra?.(changed),
          reason,
          recipients: recipientsOf(changed),
          skipped: auditedSkips(skipped),
        },
      }),
    },
    as,
  );
  return bulk(step);
}

/**
 * Holds statements with a reason: in a draft batch (draft or approved ones), or in an approved or paid batch
 * (approved ones, to stop a payment before it is made, and returned ones, whose recipient must be asked before they
 * are paid again). Held statements are not paid and stay owed.
 */
export async function holdStatements(db: Db, params: ReasonedChange, as: ActingAs): Promise<BulkResult> {
  const reason = requireReason(params.reason, "the payout is held");
  return reasonedTransition(db, "hold", { ...params, reason }, as, { countKey: "held" });
}

/**
 * Releases held statements: back to draft in a draft batch; in an approved or paid batch back to approved (to be
 * paid; a paid batch is open again until it is), or straight to carried when there is nothing to pay. A hold with
 * open flags stays held (carry it forward instead); under the two-person rule the preparer cannot release a hold
 * once the batch is approved. The reason is kept.
 */
export async function releaseStatements(db: Db, params: ReasonedChange, as: ActingAs): Promise<BulkResult> {
  const reason = requireReason(params.reason, "the hold is released");
  return reasonedTransition(db, "release", { ...params, reason }, as, { countKey: "released" });
}

/**
 * Carries held statements of an approved or paid batch forward whole: each closes with nothing paid and its whole
 * available balance carried out, which the recipient's next prepared statement takes in (and pays, once its own
 * flags are cleared). The way out of a hold that can no longer be released, e.g. a paid batch whose flags cannot be
 * overridden any more. The ledger shows a rollover of the balance, so the carry-forward invariant holds.
 */
export async function carryStatementsForward(db: Db, params: ReasonedChange, as: ActingAs): Promise<BulkResult> {
  const reason = requireReason(params.reason, "the balance is carried forward");
  return reasonedTransition(db, "carry_forward", { ...params, reason }, as, {
    countKey: "carried",
    extra: (changed) => ({ amountUsd: formatUsd(sumMoney(changed.map((r) => r.available_usd))) }),
    eventDetail: (r) => ({
      reason,
      holdReason: r.hold_reason,
      payableBeforeUsd: formatUsd(r.payable_usd),
      carriedUsd: formatUsd(r.available_usd),
      ...(r.openFlags ? { openFlags: r.openFlags } : {}),
    }),
  });
}

export { approvePayoutBatch, discardPayoutBatch, markStatementsPaid } from "./batch-approval";
