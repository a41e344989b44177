import "server-only";
import type { ActingAs } from "@/core/actor";
import type { Db } from "@/db";
import { completeSettledFiles } from "@/db/queries/payment-flow";
import { recordAuditAfterTheFact } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { type Applied, applyPlan } from "./apply-results";
import { LISTED } from "./plan-line";
import { planResults, type ResultsPlan, type Verdict } from "./results-plan";
import type { ResultFormat } from "./schemas";

export { linesToShow, SHOWN_LINES } from "./plan-line";
export {
  listedCount,
  type PlanLine,
  planResults,
  type ResultsPlan,
  VERDICTS,
  type Verdict,
} from "./results-plan";

/**
 * Importing a provider's results: a dry run returns the plan (lib/payments/results-plan.ts) and changes nothing;
 * otherwise the lines that apply are applied (lib/payments/apply-results.ts) and the rest stay listed. Files none of
 * whose statements is still in payment are then completed.
 */

export type ImportSummary = {
  dryRun: boolean;
  sha256: string;
  counts: Record<Verdict, number>;
  applied: Applied;
  unreadable: number;
  plan: ResultsPlan;
};

/** The recipients whose payment a plan's lines pay or undo (what applying it changes, at most). */
export function recipientsChangedBy(plan: ResultsPlan): Set<number> {
  return new Set(
    plan.lines.flatMap((l) =>
      (l.verdict === "pay" || l.verdict === "return") && l.recipientPlayerId !== null ? [l.recipientPlayerId] : [],
    ),
  );
}

/** Plans the import and, unless a dry run, applies the lines that apply; the rest stay listed. */
export async function importResults(
  db: Db,
  params: { gameId: string; batchId: string; format: ResultFormat; text: string; dryRun: boolean; paidOn?: string },
  as: ActingAs,
): Promise<ImportSummary> {
  const plan = await planResults(db, params);
  const [first, ...others] = plan.unreadable;
  if (plan.lines.length === 0 && first)
    throw new AppError(
      "INVALID_INPUT",
      `No result could be read: ${first.line > 0 ? `line ${first.line}: ` : ""}${first.reason}` +
        `${others.length > 0 ? ` (and ${others.length} more line${others.length === 1 ? "" : "s"})` : ""}.`,
    );
  const base = {
    dryRun: params.dryRun,
    sha256: plan.sha256,
    counts: plan.counts,
    unreadable: plan.unreadable.length,
    plan,
  };
  if (params.dryRun) return { ...base, applied: { paid: 0, rejected: 0, returned: 0, pending: 0 } };
  return { ...base, applied: await applyResults(db, params, plan, as) };
}

/** Applies a plan read before (importResults), audits the import and completes the files it settled whole. */
export async function applyResults(
  db: Db,
  params: { gameId: string; batchId: string; format: ResultFormat },
  plan: ResultsPlan,
  as: ActingAs,
): Promise<Applied> {
  const applied: Applied = { paid: 0, rejected: 0, returned: 0, pending: 0 };
  try {
    await applyPlan(db, { gameId: params.gameId, batchId: params.batchId, plan }, as, applied);
  } catch (error) {
    // A step refused after an earlier one committed: the import is audited with what it applied and why it stopped,
    // so the report's lines listed for a person (a payment from a cancelled file) are not lost with the rest.
    if (applied.paid + applied.rejected + applied.returned + applied.pending > 0)
      await recordImport(db, params, plan, applied, as, { stoppedBy: error });
    throw error;
  } finally {
    // A file settled whole by an earlier import that stopped before completing it (each step completes the files it
    // settles) is completed here: offered for the record only, not left live to be uploaded again.
    await completeSettledFiles(db, { gameId: params.gameId, batchId: params.batchId });
  }
  await recordImport(db, params, plan, applied, as);
  return applied;
}

/** The lines of an import kept in its audit line: those listed for a person, never applied. */
const AUDITED_LISTED_LINES = 200;

/**
 * One line for every import applied, whatever it changed: which report (its SHA-256), who imported it, what each kind
 * of line came to, and the lines listed and never applied (a payment from a cancelled file above all: a statement the
 * desk made payable again that the provider paid after all). A report that applies nothing leaves its trace too.
 */
async function recordImport(
  db: Db,
  params: { gameId: string; batchId: string; format: ResultFormat },
  plan: ResultsPlan,
  applied: ImportSummary["applied"],
  as: ActingAs,
  partly?: { stoppedBy: unknown },
): Promise<void> {
  const listed = plan.lines.filter((l) => LISTED.includes(l.verdict));
  await recordAuditAfterTheFact(db, {
    ...as,
    action: "payouts.results.import",
    gameId: params.gameId,
    target: params.batchId,
    idempotencyKey: plan.sha256,
    outcome: partly ? "stopped_partway" : "succeeded",
    detail: {
      ...(partly
        ? { stoppedBy: partly.stoppedBy instanceof AppError ? partly.stoppedBy.message : "an unexpected error" }
        : {}),
      format: params.format,
      sha256: plan.sha256,
      counts: plan.counts,
      unreadable: plan.unreadable.length,
      applied,
      listed: listed.slice(0, AUDITED_LISTED_LINES).map((l) => ({
        reference: l.reference,
        statementId: l.statementId,
        recipientPlayerId: l.recipientPlayerId,
        verdict: l.verdict,
        amount: l.amount,
        currency: l.currency,
        transactionId: l.transactionId,
      })),
      ...(listed.length > AUDITED_LISTED_LINES ? { listedNotKept: listed.length - AUDITED_LISTED_LINES } : {}),
    },
  });
}
