import "server-only";
import { z } from "zod";
import { notFound } from "next/navigation";
import { type Db, getDb } from "@/db";
import type { SnapshotDisputeRow } from "@/db/queries/disputes";
import { listDisputesOfBatch } from "@/lib/payouts/snapshot-disputes";
import { getLatestSnapshot, getSnapshot, type SnapshotHeader } from "@/db/queries/snapshots";
import type { GameSummary } from "@/db/queries/games";
import { type CurrentUser, requirePageRole } from "@/lib/auth/session";
import { hasRole } from "@/lib/auth/roles";
import { resolveSelectedGame } from "@/lib/games/games";
import {
  type ActiveFlag,
  type BatchFlags,
  disputeFlagsOf,
  type FlagOverride,
  listFlagOverrides,
  windowFlagsOf,
} from "@/lib/payouts/flags";
import {
  getLiveBatch,
  iteratePayoutStatements,
  type PayoutBatchSummary,
  type PayoutStatement,
} from "@/lib/payouts/ledger";
import { findStatementId } from "@/db/queries/payouts";
import { listPaymentReturns } from "@/db/queries/payment-flow";
import type { BatchContext, BatchCounts } from "@/lib/payouts/offered-actions";
import type { BatchCounts as BatchTally } from "@/db/queries/payouts";
import { approvedBarredFromPayment, approvedWithOpenFlags, hasUnflaggedDraft } from "@/lib/payouts/batch-flag-reads";
import { heldOnOwnFirstDetails, recipientsOnOwnFirstDetails } from "@/lib/payouts/own-details";
import { type PayoutSettings, readPayoutSettings } from "@/lib/payouts/settings";
import { type ProfileRules, readProfileRules } from "@/lib/profiles/flags";
import { parseWindowKey } from "@/lib/payouts/window-key";
import type { TimeWindow } from "@/lib/time";

export type WindowRequest = { user: CurrentUser; db: Db; game: GameSummary | null; window: TimeWindow };

/** The signed-in viewer, their game and the window named in the address; an unreadable window is not found. */
export async function loadWindowRequest(windowParam: string): Promise<WindowRequest> {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const window = parseWindowKey(windowParam);
  if (!window) notFound();
  return { user, db, game, window };
}

export type WindowReview = {
  batch: PayoutBatchSummary | null;
  snapshot: SnapshotHeader;
  windowFlags: ActiveFlag[];
  disputes: SnapshotDisputeRow[];
  overrides: FlagOverride[];
  settings: PayoutSettings;
  /** What the recipients' profile flags are evaluated under, read once for the whole view (with a batch only). */
  rules: ProfileRules | undefined;
};

/**
 * What both the window page and a recipient's evidence page review: the live batch, the snapshot it pays from, the
 * flags, overrides and disputes. Null when the window has no snapshot (or the one asked for is of another window).
 */
export async function loadWindowReview(
  db: Db,
  params: { gameId: string; window: TimeWindow; snapshotId?: string; recipientPlayerId?: number },
): Promise<WindowReview | null> {
  const { gameId, window } = params;
  const batch = await getLiveBatch(db, { gameId, window });
  // A prepared batch pays from the version it was built on; the pages show that version.
  const snapshot = batch
    ? await getSnapshot(db, { gameId, snapshotId: batch.snapshotId })
    : params.snapshotId && z.uuid().safeParse(params.snapshotId).success
      ? await getSnapshot(db, { gameId, snapshotId: params.snapshotId })
      : await getLatestSnapshot(db, { gameId, window });
  if (!snapshot || snapshot.window.startMs !== window.startMs || snapshot.window.endMs !== window.endMs) return null;
  const [windowFlags, disputes, overrides, settings, rules] = await Promise.all([
    windowFlagsOf(db, snapshot),
    listDisputesOfBatch(db, {
      gameId,
      snapshotId: snapshot.id,
      batchId: batch?.id ?? null,
      recipientPlayerId: params.recipientPlayerId,
    }),
    batch ? listFlagOverrides(db, { gameId, batchId: batch.id }) : Promise.resolve([]),
    readPayoutSettings(db),
    batch ? readProfileRules(db, { gameId }) : undefined,
  ]);
  return { batch, snapshot, windowFlags, disputes, overrides, settings, rules };
}

/**
 * What this person may do with the batch, from lib/payouts/offered-actions.ts (the domain refuses by the same
 * function).
 */
export function batchContextOf(
  user: CurrentUser,
  batch: PayoutBatchSummary | null,
  settings: PayoutSettings,
): BatchContext | null {
  if (!batch) return null;
  return {
    role: user.role,
    actorId: user.id,
    status: batch.status,
    // A draft is approved under the rule in force now; an approved batch keeps the rule it was approved under.
    twoPersonRule: batch.status === "draft" ? settings.twoPersonRule : batch.twoPersonRule,
    preparedById: batch.preparedById,
    approvedById: batch.approvedById,
  };
}

/**
 * The batch's counts as lib/payouts/offered-actions.ts decides its actions from them, with what only reading flags
 * statement by statement tells, read only where the action would be offered otherwise (finance, the batch in the state
 * it applies to, no window flag open): approved statements flagged since approval, every draft flagged, approved ones
 * whose payment a flag stops, and (for someone other than the preparer, under the two-person rule) approved ones paying
 * first details the viewer entered.
 */
export async function batchCountsOf(
  db: Db,
  params: {
    gameId: string;
    batch: PayoutBatchSummary | null;
    counts: BatchTally | null;
    canAct: boolean;
    /** The person looking, and whether the two-person rule is in force now (what approving a draft is under). */
    viewer: { actorId: string; twoPersonRule: boolean };
  },
  review: WindowReview,
  openWindowFlags: number,
): Promise<BatchCounts> {
  const { batch, counts, canAct } = params;
  // The flags every statement shares, as the page read them: not read again for each question.
  const shared: BatchFlags = {
    snapshotId: review.snapshot.id,
    window: review.windowFlags,
    disputes: disputeFlagsOf(review.disputes),
    disputeRows: review.disputes,
    overrides: review.overrides,
    rules: review.rules,
  };
  const draft = counts?.byState.draft.count ?? 0;
  const approved = counts?.byState.approved.count ?? 0;
  const target = batch ? { gameId: params.gameId, batchId: batch.id, snapshotId: batch.snapshotId } : null;
  const drafting = canAct && batch?.status === "draft" && openWindowFlags === 0 && target;
  const paying = canAct && (batch?.status === "approved" || batch?.status === "paid") && approved > 0 && target;
  return {
    openWindowFlags,
    approvedFlagged: drafting && draft === 0 ? await approvedWithOpenFlags(db, drafting, shared) : [],
    ownFirstDetails:
      drafting && draft === 0 && params.viewer.twoPersonRule && batch?.preparedById !== params.viewer.actorId
        ? await recipientsOnOwnFirstDetails(db, { ...drafting, actorId: params.viewer.actorId, states: ["approved"] })
        : [],
    draftsAllFlagged: drafting && draft > 0 ? !(await hasUnflaggedDraft(db, drafting, shared)) : false,
    approvedBarred: paying ? await approvedBarredFromPayment(db, paying, shared) : [],
    draft,
    approved,
    held: counts?.byState.held.count ?? 0,
    total: counts?.total ?? 0,
  };
}

/**
 * Of the held statements' recipients given, those whose hold this person may not release under the batch's two-person
 * rule (their own first payout details, which no payment has gone to yet: lib/payouts/offered-actions.ts). Read only
 * for finance, in an approved or paid batch.
 */
export async function ownFirstDetailsHeld(
  db: Db,
  p: { gameId: string; batch: PayoutBatchSummary | null; context: BatchContext | null; held: readonly number[] },
): Promise<number[]> {
  const { batch, context } = p;
  if (!batch || !context || !hasRole(context.role, "finance")) return [];
  const facts = { ...batch, twoPersonRule: context.twoPersonRule };
  return heldOnOwnFirstDetails(db, { gameId: p.gameId, batch: facts, actorId: context.actorId, held: p.held });
}

/**
 * A recipient's statement in the batch, if any, and whether it is returned because its payment was recorded paid by
 * mistake and undone (its latest return is undone) rather than because the payment came back.
 */
export async function loadStatement(
  db: Db,
  p: { gameId: string; batchId: string; recipientPlayerId: number },
): Promise<{ statement: PayoutStatement | null; undone: boolean }> {
  if (!(await findStatementId(db, p))) return { statement: null, undone: false };
  let statement: PayoutStatement | null = null;
  for await (const s of iteratePayoutStatements(db, p)) statement = s;
  if (statement?.state !== "returned") return { statement, undone: false };
  const returns = await listPaymentReturns(db, { gameId: p.gameId, statementIds: [statement.id] });
  return { statement, undone: returns.at(-1)?.undone === true };
}
