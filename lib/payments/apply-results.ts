import "server-only";
import type { ActingAs } from "@/core/actor";
import { formatUsd } from "@/core/money";
import type { Db, DbOrTrx } from "@/db";
import { recordPaymentResults } from "@/db/queries/payment-files";
import {
  completeSettledFiles,
  insertPaymentReturns,
  listFileStatementsInPayment,
  listRecordedResultKeys,
  settleFileItems,
} from "@/db/queries/payment-flow";
import { AppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { holdPayoutsOfGame } from "@/lib/payouts/game-lock";
import { type Changed, transition } from "@/lib/payouts/transition";
import { type PaymentBefore, paymentsBeforeReturn, returnRows } from "./returns";
import { utcToday } from "@/lib/payouts/paid-on";
import { groupByFile, type PlanLine, type ResultsPlan, resultKey } from "./results-plan";

/** Applies the lines of a results plan that change a statement, one transition per kind of change. */

async function recordLines(
  trx: DbOrTrx,
  batch: { gameId: string; batchId: string },
  plan: ResultsPlan,
  lines: readonly PlanLine[],
) {
  const { gameId } = batch;
  for (const [fileId, group] of groupByFile(lines)) {
    await recordPaymentResults(trx, { gameId, fileId, sourceSha256: plan.sha256, results: group.map((l) => l.result) });
    // Paid or rejected, the item is settled: the statement may go into another file if it is owed again.
    await settleFileItems(trx, { fileId, statementIds: group.map((l) => l.statementId ?? "") });
  }
  // A file this step settles whole is completed in the same transaction (offered for the record only, never to be
  // uploaded again): a process that stops right after the commit cannot leave it live.
  await completeSettledFiles(trx, batch);
}

/** The id of the result recorded for each line (statement, outcome, transaction id or file). */
async function resultIds(db: DbOrTrx, lines: readonly PlanLine[]): Promise<Map<string, string>> {
  const keys = await listRecordedResultKeys(
    db,
    lines.map((l) => l.statementId ?? ""),
  );
  const byKey = new Map(
    keys.map((k) => [resultKey(k.statementId, k.outcome, k.transactionId, k.fileId), String(k.id)]),
  );
  const out = new Map<string, string>();
  for (const l of lines) {
    const id = byKey.get(resultKey(l.statementId ?? "", l.outcome, l.transactionId, l.fileId));
    if (id && l.statementId) out.set(l.statementId, id);
  }
  return out;
}

/**
 * Refuses results planned while a statement was in one file but applied once it is in another: the plan was read
 * outside the batch's lock, and a file cancelled meanwhile leaves its statements for a new file, whose own results
 * alone may settle them.
 */
function refuseMovedStatements(lines: Map<string, PlanLine>, changed: readonly Changed[]): void {
  const moved = changed.filter((c) => c.payment_file_id !== lines.get(c.id)?.fileId);
  if (moved.length > 0)
    throw new AppError(
      "CONFLICT",
      `${countOf(moved.length, "statement")} of these results ${moved.length === 1 ? "has" : "have"} moved to ` +
        "another payment file since the results were read: import the file again.",
    );
  refuseChangedStatements(lines, changed);
}

/**
 * Refuses returns planned for a payment the statement no longer records: returned and paid again by hand since the
 * plan was read, the return of the earlier payment must not undo the new one.
 */
function refuseOtherPayments(
  lines: Map<string, PlanLine>,
  changed: readonly Changed[],
  before: Map<string, PaymentBefore>,
): void {
  const other = changed.filter((c) => {
    const planned = lines.get(c.id)?.recordedPayment;
    const now = before.get(c.id);
    return (
      !planned || planned.reference !== (now?.reference ?? null) || planned.at !== (now?.paidAt?.toISOString() ?? null)
    );
  });
  if (other.length > 0)
    throw new AppError(
      "CONFLICT",
      `The payment recorded on ${countOf(other.length, "statement")} changed since the results were read (returned ` +
        "or paid again meanwhile): nothing was returned. Import the file again.",
    );
}

/**
 * Refuses results planned for statements no longer in the state the plan read (a file cancelled, a payment recorded
 * or returned by hand meanwhile): applying the rest would leave the provider's answer for those neither applied nor
 * listed.
 */
function refuseChangedStatements(lines: Map<string, PlanLine>, changed: readonly Changed[]): void {
  const still = new Set(changed.map((c) => c.id));
  const gone = [...lines.keys()].filter((id) => !still.has(id)).length;
  if (gone > 0)
    throw new AppError(
      "CONFLICT",
      `${countOf(gone, "statement")} of these results ${gone === 1 ? "has" : "have"} changed since the results ` +
        "were read (a payment file cancelled, a payment recorded by hand): import the file again.",
    );
}

function partlyApplied(applied: { paid: number; rejected: number; returned: number }, error: unknown): unknown {
  const done = [
    applied.paid > 0 ? `${countOf(applied.paid, "payment")} recorded as paid` : null,
    applied.rejected > 0 ? `${countOf(applied.rejected, "rejection")} recorded` : null,
  ].filter((d): d is string => d !== null);
  if (!(error instanceof AppError) || done.length === 0) return error;
  return new AppError(
    error.code,
    `${done.join(" and ")} before this stopped: ${error.message} The rest was not applied; importing the file again ` +
      "applies it (what was applied reads as already applied).",
  );
}

export type Applied = { paid: number; rejected: number; returned: number; pending: number };

/**
 * Applies the plan, counting into `applied` what each step changed as it commits: a caller reads there what was
 * applied when a later step is refused.
 */
export async function applyPlan(
  db: Db,
  params: { gameId: string; batchId: string; plan: ResultsPlan },
  as: ActingAs,
  applied: Applied = { paid: 0, rejected: 0, returned: 0, pending: 0 },
): Promise<Applied> {
  // Paid, rejected and returned lines are applied in turn, each in its own transaction: a step refused after an
  // earlier one committed says what was applied, so nobody reads the whole import as undone.
  try {
    await applySteps(db, params, as, applied);
  } catch (error) {
    throw partlyApplied(applied, error);
  }
  const pending = params.plan.lines.filter((l) => l.verdict === "pending");
  if (pending.length > 0) {
    try {
      applied.pending = await recordPending(db, params.gameId, params.plan, pending);
    } catch (error) {
      throw partlyApplied(applied, error);
    }
  }
  return applied;
}

/**
 * Records results that change no state (pending), once each, under the game's payout lock and for statements still in
 * payment in the file the plan read: a file cancelled meanwhile (its statements payable again) must not be recorded
 * as held by the provider, nor left cancellable while it is.
 */
async function recordPending(db: Db, gameId: string, plan: ResultsPlan, lines: readonly PlanLine[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await holdPayoutsOfGame(trx, gameId);
    let n = 0;
    for (const [fileId, group] of groupByFile(lines)) {
      const inPayment = new Set(await listFileStatementsInPayment(trx, { fileId }));
      const gone = group.filter((l) => !inPayment.has(l.statementId ?? "")).length;
      if (gone > 0)
        throw new AppError(
          "CONFLICT",
          `${countOf(gone, "statement")} the provider reported pending ${gone === 1 ? "is" : "are"} no longer in ` +
            "payment in its file (the file cancelled, or a result recorded, since the results were read): import the " +
            "file again.",
        );
      const r = await recordPaymentResults(trx, {
        gameId,
        fileId,
        sourceSha256: plan.sha256,
        results: group.map((l) => l.result),
      });
      n += r.inserted;
    }
    return n;
  });
}

/** The paid, rejected and returned lines, each a transition of its own; counts what each changed into `applied`. */
async function applySteps(
  db: Db,
  params: { gameId: string; batchId: string; plan: ResultsPlan },
  as: ActingAs,
  applied: { paid: number; rejected: number; returned: number },
): Promise<void> {
  const { gameId, batchId, plan } = params;
  const of = (verdict: PlanLine["verdict"]) =>
    new Map(plan.lines.filter((l) => l.verdict === verdict && l.statementId).map((l) => [l.statementId ?? "", l]));
  const line = (m: Map<string, PlanLine>, id: string) => m.get(id) as PlanLine;
  const detail = (l: PlanLine) => ({
    fileId: l.fileId,
    reference: l.reference,
    transactionId: l.transactionId,
    fee: l.fee,
    reason: l.reason,
  });
  const audit = (kind: string) => (step: { changed: readonly unknown[] }) => ({
    detail: { format: plan.format, sha256: plan.sha256, [kind]: step.changed.length },
  });
  const pay = of("pay");
  if (pay.size > 0) {
    const step = await transition(
      db,
      "payment_succeeded",
      {
        gameId,
        batchId,
        statements: [...pay.keys()],
        check: ({ changed }) => refuseMovedStatements(pay, changed),
        paymentOf: (c) => {
          const l = line(pay, c.id);
          return {
            paidOn: l.paidOn ?? utcToday(),
            method: l.method ?? "file",
            reference: l.transactionId ?? l.reference,
            fileId: l.fileId,
          };
        },
        eventDetail: (c) => detail(line(pay, c.id)),
        apply: ({ trx, changed }) =>
          recordLines(
            trx,
            { gameId, batchId },
            plan,
            changed.map((c) => line(pay, c.id)),
          ),
        audit: audit("paid"),
      },
      as,
    );
    applied.paid = step.changed.length;
  }

  const reject = of("reject");
  if (reject.size > 0) {
    const step = await transition(
      db,
      "payment_rejected",
      {
        gameId,
        batchId,
        statements: [...reject.keys()],
        check: ({ changed }) => refuseMovedStatements(reject, changed),
        eventDetail: (c) => detail(line(reject, c.id)),
        apply: async ({ trx, changed, batch, now }) => {
          const lines = changed.map((c) => line(reject, c.id));
          await recordLines(trx, { gameId, batchId }, plan, lines);
          const ids = await resultIds(trx, lines);
          await insertPaymentReturns(
            trx,
            changed.map((c) => {
              const l = line(reject, c.id);
              return {
                gameId,
                batchId: batch.id,
                statementId: c.id,
                recipientPlayerId: c.recipient_player_id,
                kind: "rejected" as const,
                amountUsd: formatUsd(c.payable_usd),
                reason: l.reason?.trim() || `rejected by the provider (${l.result.rawStatus})`,
                fileId: l.fileId,
                resultId: ids.get(c.id) ?? null,
                paidAt: null,
                paidOn: null,
                paymentMethod: l.method,
                paymentReference: l.reference,
                paidById: null,
                actorId: as.actor?.id ?? null,
                actorEmail: as.actor?.email ?? null,
                via: as.via,
                at: now,
              };
            }),
          );
        },
        audit: audit("rejected"),
      },
      as,
    );
    applied.rejected = step.changed.length;
  }

  const ret = of("return");
  if (ret.size > 0) {
    let before = new Map<string, PaymentBefore>();
    const step = await transition(
      db,
      "return_payment",
      {
        gameId,
        batchId,
        statements: [...ret.keys()],
        check: async ({ trx, changed }) => {
          refuseChangedStatements(ret, changed);
          before = await paymentsBeforeReturn(trx, gameId, changed);
          refuseOtherPayments(ret, changed, before);
        },
        eventDetail: (c) => detail(line(ret, c.id)),
        apply: async ({ trx, changed, batch, now }) => {
          const lines = changed.map((c) => line(ret, c.id));
          await recordLines(trx, { gameId, batchId }, plan, lines);
          const ids = await resultIds(trx, lines);
          await insertPaymentReturns(
            trx,
            returnRows(changed, before, { id: batch.id, at: now }, gameId, as, (c) => {
              const l = line(ret, c.id);
              return {
                reason: l.reason?.trim() || `returned by the provider (${l.result.rawStatus})`,
                fileId: l.fileId,
                resultId: ids.get(c.id) ?? null,
              };
            }),
          );
        },
        audit: audit("returned"),
      },
      as,
    );
    applied.returned = step.changed.length;
  }
}
