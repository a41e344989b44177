import "server-only";
import type { Db, Trx } from "@/db";
import {
  type BatchColumns,
  bumpBatchRevision,
  countApprovedStatements,
  getBatchForUpdate,
  type LockedBatch,
  setBatchStatus,
} from "@/db/queries/payout-batches";
import {
  insertStatementEvents,
  type LockedStatement,
  listStatementsForUpdate,
  setStatementPayments,
  setStatementStates,
  type StatementEventInput,
  type StatementStateChange,
} from "@/db/queries/payout-statements";
import { markChangeEmailsOwed } from "@/db/queries/statement-deliveries";
import type { PayoutStatementState } from "@/db/types";
import type { ActingAs } from "@/core/actor";
import { auditTwoPersonRefusals, recordAudit } from "@/lib/audit";
import { refreshStatisticsAfterBulkWrite } from "@/lib/statistics";
import { holdPayoutsOfGame } from "./game-lock";
import { STATE_IN_WORDS } from "./state-words";
import { AppError, TwoPersonRefusal } from "@/lib/errors";
import { type ActiveFlag, type BatchFlags, openFlagsOf, readBatchFlags } from "./flags";
import { type BatchContext, statementVerdict } from "./offered-actions";
import { heldOnOwnFirstDetails } from "./own-details";
import { CLOSED_STATES, type TransitionName, type TransitionRule, TRANSITIONS } from "./transition-table";

/**
 * Payout batches are a state machine. Every change of a batch or its statements goes through `transition()`, which
 * in one transaction:
 *
 *   1. takes the game's payout lock, then loads and locks the batch (NOT_FOUND when it is not the game's);
 *   2. refuses unless the batch's status is one the transition runs from (`batchFrom`, message `refused`);
 *   3. loads and locks the statements asked for, reads the batch's flags on the same transaction when the transition
 *      needs them, and splits the statements into changed and skipped (with the reason the pages show), by the
 *      statement states it moves from (`from`) and the per-statement check of offered-actions.ts (`verdict`);
 *   4. runs the caller's `check` (refusals that need the loaded rows), sets each changed statement's state (`to`),
 *      writes the statement events (`events`), sets the batch's status (`batchTo`) or reopens a paid batch that owes
 *      again, settles an approved batch with nothing left to pay as paid;
 *   5. writes the audit line (`audit`) with the actor and `via` the caller passed in.
 *
 * Every transition adds one to the batch's revision, once the statements are locked (and reads the database's clock
 * there, the time the change is stamped with).
 *
 * The table TRANSITIONS (transition-table.ts) is the whole workflow. A new statement state (as "in_payment": a
 * statement in a live payment file; "returned": a paid payment came back) or batch status is added by adding it to
 * the state types in db/tables/payouts.ts and adding entries to the table: one per operation, naming the states it
 * moves from, where each statement goes, the events written and the audit action; plus a verdict case in
 * offered-actions.ts when the pages offer it. No other code changes: locking, splitting, events, batch settlement and
 * the audit line are the same for every entry.
 */

export {
  CLOSED_STATES,
  type TransitionName,
  type TransitionRule,
  TRANSITIONS,
} from "./transition-table";

/**
 * A statement a transition left as it was, with the recipient's name (null when unresolved) and why; `flagged` when
 * its open flags held it back.
 */
export type Skipped = { id: string; recipientPlayerId: number; name: string | null; reason: string; flagged?: true };
/** A statement a transition changes, to `to`; `openFlags`: the flags open on it then (a hold carried forward). */
export type Changed = LockedStatement & { to: PayoutStatementState; openFlags?: string[] };

/** What a transition sees once the batch and statements are locked and split. */
export type TransitionStep = {
  trx: Trx;
  batch: LockedBatch;
  /** Every statement asked for, locked. */
  statements: LockedStatement[];
  changed: Changed[];
  skipped: Skipped[];
  /** The batch's flags, when the transition reads them. */
  flags: BatchFlags | null;
  now: Date;
  /** The batch's revision once this change is counted (a caller chaining changes sends it with the next). */
  revision: string;
};

export type TransitionRequest = {
  gameId: string;
  batchId: string;
  /** The statements asked for: by id, every one in a state, or every one of the batch (`{}`). */
  statements?: readonly string[] | { state?: PayoutStatementState };
  /** A reason kept as the hold reason of statements put on hold. */
  holdReason?: string;
  /** Payment details of statements marked paid. */
  payment?: { paidOn: string; method: string; reference: string };
  /** Payment details per statement (results read from a provider), instead of one `payment` for all. */
  paymentOf?: (statement: Changed) => { paidOn: string; method: string; reference: string; fileId?: string | null };
  /** Detail of each statement event. */
  eventDetail?: (statement: Changed) => Record<string, unknown>;
  /**
   * The batch's revision (payout_batch.revision) the page showing the figures was drawn at: refused with `message`
   * when the batch has changed since, so a person confirms what they saw and nothing that moved meanwhile.
   */
  drawnAt?: { revision: string; message: string };
  /** Refusals that need the locked rows; runs before any write. */
  check?: (step: TransitionStep) => Promise<void> | void;
  /** Writes of the transition's own (before the batch status is set). */
  apply?: (step: TransitionStep) => Promise<void>;
  /** Columns set on the batch with its new status. */
  batchColumns?: (step: TransitionStep) => BatchColumns;
  /** The audit line's detail (and outcome: "succeeded", or "nothing_changed" when no statement changed). */
  audit: (step: TransitionStep) => { detail: Record<string, unknown>; outcome?: string; idempotencyKey?: string };
};

export function describeFlags(flags: readonly ActiveFlag[]): string {
  return [...new Set(flags.map((f) => f.label))].join(", ");
}

/** Why a statement was left as it was for its open flags, written to follow the recipient's name. */
export function openFlagsMessage(flags: readonly ActiveFlag[]): string {
  return `has open flags (${describeFlags(flags)})`;
}

function verdictContext(batch: LockedBatch, as: ActingAs): BatchContext {
  // Server actions and the CLI have checked the finance role before calling in here.
  return {
    role: "finance",
    actorId: as.actor?.id ?? "",
    status: batch.status,
    twoPersonRule: batch.two_person_rule,
    preparedById: batch.prepared_by_id,
    approvedById: batch.approved_by_id,
  };
}

/**
 * The statements a rule changes and the others, skipped with the reason the pages show. A rule that binds the person
 * rather than the statement (the two-person rule) refuses the whole transition.
 */
function split(
  rule: TransitionRule,
  rows: LockedStatement[],
  batch: LockedBatch,
  as: ActingAs,
  flags: BatchFlags | null,
  ownFirstDetails: ReadonlySet<number>,
): { changed: Changed[]; skipped: Skipped[] } {
  const changed: Changed[] = [];
  const skipped: Skipped[] = [];
  const context = verdictContext(batch, as);
  for (const r of rows) {
    const recipientPlayerId = Number(r.recipient_player_id);
    const inFrom = rule.from?.includes(r.state) ?? false;
    if (!rule.verdict) {
      if (inFrom) changed.push({ ...r, to: rule.to ? rule.to(r, batch) : r.state });
      continue;
    }
    const open =
      flags && (r.state === "held" || r.state === "draft")
        ? openFlagsOf(flags, recipientPlayerId, r.recipient_flags)
        : [];
    const verdict = statementVerdict(rule.verdict, context, {
      state: r.state,
      openFlags: open.length,
      windowFlags: open.filter((f) => f.recipientPlayerId === null).length,
      availableUsd: r.available_usd,
      ownFirstDetails: ownFirstDetails.has(recipientPlayerId),
    });
    if (verdict.kind === "allowed" && inFrom)
      changed.push({
        ...r,
        to: rule.to ? rule.to(r, batch) : r.state,
        // The recipient's own (the window's stand on the window, not on the money carried).
        ...(open.some((f) => f.recipientPlayerId !== null)
          ? { openFlags: open.filter((f) => f.recipientPlayerId !== null).map((f) => f.flag) }
          : {}),
      });
    else if (verdict.kind === "blocked" && verdict.code === "two_person_rule")
      throw new TwoPersonRefusal(verdict.reason);
    else if (verdict.kind === "blocked" && verdict.code === "open_flags")
      skipped.push({ id: r.id, recipientPlayerId, name: r.player_name, reason: openFlagsMessage(open), flagged: true });
    else
      skipped.push({
        id: r.id,
        recipientPlayerId,
        name: r.player_name,
        reason: verdict.kind === "allowed" ? `is ${STATE_IN_WORDS[r.state]}` : verdict.reason,
      });
  }
  return { changed, skipped };
}

/**
 * The recipients of held statements a release names, in an approved or paid batch under its two-person rule, whose
 * first payout details this person entered and no payment has gone to yet (statementVerdict refuses their release).
 */
async function ownFirstDetailsOf(
  trx: Trx,
  rule: TransitionRule,
  batch: LockedBatch,
  rows: LockedStatement[],
  as: ActingAs,
): Promise<ReadonlySet<number>> {
  if (rule.verdict !== "release") return new Set();
  const held = rows.filter((r) => r.state === "held").map((r) => Number(r.recipient_player_id));
  const facts = {
    id: batch.id,
    status: batch.status,
    twoPersonRule: batch.two_person_rule,
    preparedById: batch.prepared_by_id,
  };
  return new Set(
    await heldOnOwnFirstDetails(trx, { gameId: batch.game_id, batch: facts, actorId: as.actor?.id, held }),
  );
}

async function writeStatements(
  trx: Trx,
  rule: TransitionRule,
  req: TransitionRequest,
  step: TransitionStep,
  as: ActingAs,
): Promise<void> {
  const from = rule.from ?? [];
  const change = (to: PayoutStatementState): StatementStateChange => ({
    state: to,
    changedByEmail: as.actor?.email ?? null,
    at: step.now,
    closes: CLOSED_STATES.includes(to),
    holdReason: to === "held" ? (req.holdReason ?? null) : from.includes("held") ? null : undefined,
    payment: to === "paid" ? req.payment : undefined,
    carryWhole: rule.carriesWhole,
    reopens: from.includes("paid") && !CLOSED_STATES.includes(to),
    // The file a statement goes into is set by the transition's own writes; leaving in_payment clears it.
    paymentFileId: from.includes("in_payment") && to !== "in_payment" ? null : undefined,
  });
  for (const to of new Set(step.changed.map((c) => c.to))) {
    const moved = step.changed.filter((c) => c.to === to && c.state !== to);
    if (moved.length === 0) continue;
    // Per-statement payments (a provider's transaction id each): each statement is paid with its own.
    const { paymentOf } = req;
    if (paymentOf && to === "paid")
      await setStatementPayments(trx, {
        payments: moved.map((c) => ({ id: c.id, ...paymentOf(c) })),
        from,
        change: change(to),
      });
    else await setStatementStates(trx, { ids: moved.map((c) => c.id), from, change: change(to) });
  }
  const events: StatementEventInput[] = [];
  for (const c of step.changed) {
    const kinds = rule.events ? rule.events(c.to) : [{ kind: rule.event ?? "changed", stateAfter: c.to }];
    for (const k of kinds) {
      events.push({
        statementId: c.id,
        batchId: step.batch.id,
        gameId: step.batch.game_id,
        recipient: c.recipient_player_id,
        kind: k.kind,
        stateAfter: k.stateAfter,
        detail: req.eventDetail?.(c),
      });
    }
  }
  await insertStatementEvents(trx, events, as.actor);
}

/** Runs one transition of the table in its own transaction; see the module comment. */
export async function transition(
  db: Db,
  name: TransitionName,
  req: TransitionRequest,
  as: ActingAs,
): Promise<TransitionStep> {
  const rule: TransitionRule = TRANSITIONS[name];
  const refused = { actor: as.actor, via: as.via, action: rule.audit, gameId: req.gameId, target: req.batchId };
  const step = await auditTwoPersonRefusals(db, refused, () => transitionIn(db, rule, req, as));
  // A batch approved, put in a file or paid at once moves every statement to another state: the window page's reads
  // by state were planned for the states before (an approved batch of 10,000 viewed 150 ms instead of 98 ms), and
  // its live files' read for the items before the file (45 ms instead of 3 ms).
  const written = ["payout_statement", "payout_statement_event", ...(rule.writes ?? [])] as const;
  await refreshStatisticsAfterBulkWrite(db, written, step.changed.length);
  return step;
}

async function transitionIn(
  db: Db,
  rule: TransitionRule,
  req: TransitionRequest,
  as: ActingAs,
): Promise<TransitionStep> {
  return db.transaction().execute(async (trx) => {
    await holdPayoutsOfGame(trx, req.gameId);
    const batch = await getBatchForUpdate(trx, { gameId: req.gameId, batchId: req.batchId });
    if (!batch) throw new AppError("NOT_FOUND", "No such payout batch for this game.");
    if (!rule.batchFrom.includes(batch.status)) throw new AppError("CONFLICT", rule.refused(batch.status));
    if (req.drawnAt && req.drawnAt.revision !== String(batch.revision))
      throw new AppError("CONFLICT", req.drawnAt.message);
    const statements = req.statements
      ? await listStatementsForUpdate(trx, { batchId: batch.id, which: req.statements })
      : [];
    // Statements named one by one: their recipients' profile flags only, not the whole batch's, under the lock.
    const named = Array.isArray(req.statements) ? statements.map((s) => Number(s.recipient_player_id)) : undefined;
    const flags = rule.readsFlags
      ? await readBatchFlags(trx, {
          gameId: req.gameId,
          batchId: batch.id,
          snapshotId: batch.snapshot_id,
          recipientPlayerIds: named,
        })
      : null;
    // The database's clock, read once the locks are held (with the change counted on the batch): every server
    // stamps approvals, payments and holds on the clock that the details' times (lib/profiles) are compared with.
    const counted = await bumpBatchRevision(trx, batch.id);
    const own = await ownFirstDetailsOf(trx, rule, batch, statements, as);
    const step: TransitionStep = {
      trx,
      batch,
      statements,
      ...split(rule, statements, batch, as, flags, own),
      flags,
      ...counted,
    };
    await req.check?.(step);
    await writeStatements(trx, rule, req, step, as);
    // A statement paid or come back owes its recipient an email, queued after this commits: marked owed meanwhile.
    await markChangeEmailsOwed(
      trx,
      step.changed.filter((c) => c.to === "paid" || c.to === "returned").map((c) => c.id),
    );
    await req.apply?.(step);
    if (rule.batchTo) {
      await setBatchStatus(trx, { batchId: batch.id, status: rule.batchTo, columns: req.batchColumns?.(step) });
    } else if (batch.status === "paid" && step.changed.some((c) => c.to === "approved" || c.to === "returned")) {
      // Something is owed again: the batch is approved-unpaid until it is paid.
      await setBatchStatus(trx, { batchId: batch.id, status: "approved", columns: { paid_at: null } });
    }
    // A batch with nothing left approved-unpaid is paid (held statements stay owed and are shown as such).
    if ((await countApprovedStatements(trx, batch.id)) === 0) {
      await setBatchStatus(trx, {
        batchId: batch.id,
        status: "paid",
        from: ["approved"],
        columns: { paid_at: step.now },
      });
    }
    const audit = req.audit(step);
    await recordAudit(trx, {
      actor: as.actor,
      via: as.via,
      action: rule.audit,
      gameId: req.gameId,
      target: batch.id,
      idempotencyKey: audit.idempotencyKey ?? null,
      // A rule that moves the batch changed it, even with no statement in it (an empty batch approved, then paid).
      outcome:
        audit.outcome ?? (step.changed.length > 0 || !rule.from || rule.batchTo ? "succeeded" : "nothing_changed"),
      detail: audit.detail,
    });
    return step;
  });
}
