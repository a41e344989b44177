import "server-only";
import type { Db } from "@/db";
import { lockSharedForTransaction } from "@/db/queries/locks";
import { claimRefundAttempt } from "@/db/queries/refund-leases";
import {
  findAttemptByIntent,
  findRefundAttempt,
  insertRefundAttempt,
  sumPeriodRefundsByRoles,
  type RefundAttempt,
} from "@/db/queries/refunds";
import { recordAudit } from "@/lib/audit";
import { hasRole, ROLES, type Role } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { formatUsd, money, sameAmount } from "@/lib/money";
import type { ServiceClientConfig } from "@/lib/service/client";
import { describeServiceFailure, isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import type { PeriodReport } from "@/lib/service/schemas";
import {
  callService,
  inProgressMessage,
  INTERACTIVE_CLIENT,
  settledOutcome,
  targetOf,
  type DriveOptions,
  type RefundOutcome,
} from "./call";
import { chargebackOfPeriod } from "./chargeback";
import { computeRefundImpact, type RefundImpact } from "./impact";
import { refundedByOther } from "./messages";
import { formatUsdText } from "@/lib/format";
import { refuseWhileOpen } from "./open-attempt";
import { newClientRequestId, refundIntentKey } from "./intent";
import { LEASE_MS, SYSTEM_CLOCK } from "./lease";
import { wasRecipientPaidFor } from "./paid-status";
import { readPlayerEmail } from "./player-email";
import { readSupportRefundLimit, SUPPORT_REFUND_LIMIT_KEY } from "./settings";

export type RefundActor = { id: string; email: string; role: Role };
export type { CallDriver, CallHooks, DriveOptions, RefundOutcome } from "./call";
export { MAX_CALLS_BEFORE_ATTENTION } from "./call";

export type RefundRequest = {
  gameId: string;
  subscriptionId: string;
  periodId: number;
  periodSeq: number;
  amountUsd: string;
  /** The remaining refundable amount the person saw when confirming. */
  remainingBeforeUsd: string;
  reason: string | null;
};

/**
 * The period as the service reports it now, and what refunding `amountUsd` of it would do. With the refund call's
 * retries unless the caller passes its own (the review, a page read: PAGE_READ_CLIENT).
 */
export async function previewRefund(
  db: Db,
  gameId: string,
  input: { periodId: number; subscriptionId?: string; amountUsd: string | null },
  clientOverrides: Partial<ServiceClientConfig> = {},
): Promise<{ report: PeriodReport; impact: RefundImpact }> {
  const client = await serviceClientForGame(db, gameId, { ...INTERACTIVE_CLIENT, ...clientOverrides });
  let report: PeriodReport;
  try {
    report = await client.getPeriodReport(input.periodId, { subscriptionId: input.subscriptionId });
  } catch (error) {
    if (isServiceError(error) && error.status === 404) {
      throw new AppError("NOT_FOUND", `The service has no period ${input.periodId} for this game.`, { cause: error });
    }
    if (isServiceError(error)) {
      throw new AppError(
        "SERVICE_ERROR",
        `The service did not give the period, so nothing was refunded: ${describeServiceFailure(error)}`,
        { cause: error },
      );
    }
    throw error;
  }
  if (input.subscriptionId && report.period.subscription_id !== input.subscriptionId) {
    throw new AppError(
      "INVALID_INPUT",
      "This period belongs to another subscription; open the refund from the period page.",
    );
  }
  const [recipientAlreadyPaid, chargeback] = await Promise.all([
    report.period.attribution ? wasRecipientPaidFor(db, gameId, report.period.period_id) : false,
    chargebackOfPeriod(db, gameId, report.period),
  ]);
  const impact = computeRefundImpact(report, {
    amountUsd: input.amountUsd,
    nowMs: Date.now(),
    recipientAlreadyPaid,
    chargeback,
  });
  return { report, impact };
}

/** What refunding the rest of the period would do, as its page shows it before any review. */
export async function periodRefundOutlook(db: Db, gameId: string, report: PeriodReport): Promise<RefundImpact> {
  const chargeback = await chargebackOfPeriod(db, gameId, report.period);
  return computeRefundImpact(report, { amountUsd: null, nowMs: Date.now(), recipientAlreadyPaid: false, chargeback });
}

/** Roles whose refunds count against the support limit: everyone below finance. */
export const LIMITED_ROLES: readonly Role[] = ROLES.filter((role) => !hasRole(role, "finance"));

type PeriodTarget = { gameId: string; subscriptionId: string; periodSeq: number };

export type SupportLimitStanding = {
  limitUsd: string;
  /** Refunded (or being refunded) on the period from Payout Desk by users below finance. */
  usedUsd: string;
  /** What users below finance may still refund on the period alone. */
  availableUsd: string;
};

/**
 * The support limit applies per period, in total: everything users below finance refunded on the period from Payout
 * Desk (landed, being sent, or waiting for a person), plus this refund, must stay within it. Otherwise four partials
 * would make a refund no support user may make in one go.
 */
export async function readSupportLimitStanding(
  db: Db,
  target: PeriodTarget,
  options: { limitUsd?: string; excludeAttemptId?: string } = {},
): Promise<SupportLimitStanding> {
  const limitUsd = options.limitUsd ?? (await readSupportRefundLimit(db)).amountUsd;
  const usedUsd = await sumPeriodRefundsByRoles(db, {
    ...target,
    roles: LIMITED_ROLES,
    excludeAttemptId: options.excludeAttemptId,
  });
  const available = money(limitUsd).minus(money(usedUsd));
  return {
    limitUsd: formatUsd(limitUsd),
    usedUsd: formatUsd(usedUsd),
    availableUsd: formatUsd(available.isNegative() ? money("0") : available),
  };
}

export function exceedsSupportLimit(standing: SupportLimitStanding, amountUsd: string): boolean {
  return money(standing.usedUsd).plus(money(amountUsd)).gt(money(standing.limitUsd));
}

export function describeOverLimit(standing: SupportLimitStanding, amountUsd: string): string {
  const amount = formatUsd(amountUsd);
  if (money(standing.usedUsd).isZero()) {
    return (
      `Support may refund up to ${formatUsdText(standing.limitUsd)} per period, in total; ` +
      `${formatUsdText(amount)} needs a finance user.`
    );
  }
  return (
    `Support may refund up to ${formatUsdText(standing.limitUsd)} per period, in total, ` +
    `and support has already refunded ${formatUsdText(standing.usedUsd)} of this period; ` +
    `another ${formatUsdText(amount)} needs a finance user ` +
    `(support may refund at most ${formatUsdText(standing.availableUsd)} more).`
  );
}

/**
 * Refuses a refund the actor may not make alone: users below finance up to the configured limit per period, in
 * total; finance and admin any amount. The refusal is recorded. Returns the standing it checked, null for finance.
 */
export async function checkRefundLimit(
  db: Db,
  actor: RefundActor,
  request: RefundRequest,
): Promise<SupportLimitStanding | null> {
  if (hasRole(actor.role, "finance")) return null;
  const standing = await readSupportLimitStanding(db, request);
  if (!exceedsSupportLimit(standing, request.amountUsd)) return standing;
  return refuseOverLimit(db, actor, request, standing);
}

async function refuseOverLimit(
  db: Db,
  actor: RefundActor,
  request: RefundRequest,
  standing: SupportLimitStanding,
): Promise<never> {
  await recordAudit(db, {
    actor,
    // Refunds are asked for on the pages only (source "desk", which the call's own lines read as "web" too).
    via: "web",
    action: "refund.request",
    gameId: request.gameId,
    target: targetOf(request),
    outcome: "refused_over_limit",
    detail: {
      amount_usd: formatUsd(request.amountUsd),
      support_limit_usd: standing.limitUsd,
      support_refunded_on_period_usd: standing.usedUsd,
      role: actor.role,
    },
  });
  throw new AppError("FORBIDDEN", `${describeOverLimit(standing, request.amountUsd)} Nothing was refunded.`, {
    field: "amountUsd",
  });
}

/** Thrown inside the storing transaction to undo the insert when the limit no longer holds. */
class OverLimitAtInsert extends Error {
  constructor(readonly standing: SupportLimitStanding) {
    super("over the support refund limit");
  }
}

function isRefunded(attempt: RefundAttempt): boolean {
  return attempt.status === "succeeded" || (attempt.status === "resolved" && attempt.resolutionOutcome === "refunded");
}

/**
 * The outcome of an attempt of the same intent (a double click, a second tab: one refund, its outcome shown). A refund
 * someone else made from the same review is not shown as this person's, whether it had landed before they confirmed or
 * lands while their request waits for it (two people pressing at once): they are told who refunded what and when
 * (refundedByOther), and review the period again to refund more.
 */
async function joinAttempt(
  db: Db,
  attempt: RefundAttempt,
  actor: RefundActor,
  drive: DriveOptions,
): Promise<RefundOutcome> {
  const someoneElse = attempt.actorId !== actor.id;
  if (someoneElse && isRefunded(attempt))
    throw new AppError("CONFLICT", refundedByOther(attempt), { field: "amountUsd" });
  const outcome = await driveRefundAttempt(db, attempt, drive);
  if (someoneElse && isRefunded(outcome.attempt))
    throw new AppError("CONFLICT", refundedByOther(outcome.attempt), { field: "amountUsd" });
  return outcome;
}

/**
 * Makes a refund exactly once. The attempt (key, actor, parameters, what the person was shown) is stored before the
 * service is called; the same intent always reaches the same attempt; the call is made by one request at a time and
 * every retry sends the stored key and parameters.
 */
export async function requestRefund(
  db: Db,
  request: RefundRequest,
  actor: RefundActor,
  options: DriveOptions = {},
): Promise<RefundOutcome> {
  const drive: DriveOptions = { ...options, source: "desk", driver: { id: actor.id, email: actor.email } };
  const intentKey = refundIntentKey(request);

  // Joining the attempt of the same intent never refunds more than that attempt: its limit was checked when stored.
  const existing = await findAttemptByIntent(db, request.gameId, intentKey);
  if (existing) return joinAttempt(db, existing, actor, drive);

  const limited = !hasRole(actor.role, "finance");
  await checkRefundLimit(db, actor, request);

  // The period must still look like what the person confirmed; otherwise they review it again.
  const [{ impact }, playerEmail] = await Promise.all([
    previewRefund(
      db,
      request.gameId,
      { periodId: request.periodId, subscriptionId: request.subscriptionId, amountUsd: request.amountUsd },
      options.client,
    ),
    readPlayerEmail(db, request.gameId, request.subscriptionId, options.client ?? {}),
  ]);
  if (impact.periodSeq !== request.periodSeq) {
    throw new AppError(
      "INVALID_INPUT",
      "The period number does not match the period; open the refund from the period page again.",
    );
  }
  if (!impact.refundable || !sameAmount(impact.remainingUsd, request.remainingBeforeUsd)) {
    // The same intent may have been stored and refunded by a double click while this request read the period.
    const joined = await findAttemptByIntent(db, request.gameId, intentKey);
    if (joined) return joinAttempt(db, joined, actor, drive);
  }
  if (!impact.refundable) throw new AppError("CONFLICT", impact.effects[0] ?? "This period cannot be refunded.");
  if (!sameAmount(impact.remainingUsd, request.remainingBeforeUsd)) {
    throw new AppError(
      "CONFLICT",
      `The period changed since it was reviewed: ${formatUsdText(impact.remainingUsd)} remains refundable now ` +
        `(it was ${formatUsdText(formatUsd(request.remainingBeforeUsd))}). Nothing was refunded; review the refund ` +
        "again.",
      { field: "amountUsd" },
    );
  }
  if (money(request.amountUsd).gt(money(impact.remainingUsd))) {
    throw new AppError(
      "INVALID_INPUT",
      `must be at most the remaining refundable ${formatUsdText(impact.remainingUsd)}`,
      { field: "amountUsd" },
    );
  }

  const clientRequestId = newClientRequestId();
  let inserted: RefundAttempt | null;
  try {
    inserted = await db.transaction().execute(async (trx) => {
      const attempt = await insertRefundAttempt(trx, {
        gameId: request.gameId,
        subscriptionId: request.subscriptionId,
        periodSeq: request.periodSeq,
        periodId: request.periodId,
        playerEmail,
        amountUsd: formatUsd(request.amountUsd),
        remainingBeforeUsd: formatUsd(request.remainingBeforeUsd),
        isFull: impact.isFull,
        reason: request.reason,
        clientRequestId,
        intentKey,
        actor,
        impact: impact as unknown as Record<string, unknown>,
      });
      if (!attempt) return null;
      let standing: SupportLimitStanding | null = null;
      if (limited) {
        // Checked again with the row in place: a refund by the same group that landed since the first check counts too,
        // and the limit is read again, under its lock: one saved since applies, one being saved waits for this.
        await lockSharedForTransaction(trx, SUPPORT_REFUND_LIMIT_KEY);
        standing = await readSupportLimitStanding(trx, request, { excludeAttemptId: attempt.id });
        if (exceedsSupportLimit(standing, attempt.amountUsd)) throw new OverLimitAtInsert(standing);
      }
      await recordAudit(trx, {
        actor,
        // Refunds are asked for on the pages only (source "desk", which the call's own lines read as "web" too).
        via: "web",
        action: "refund.request",
        gameId: request.gameId,
        target: targetOf(request),
        idempotencyKey: clientRequestId,
        outcome: "pending",
        detail: {
          attempt_id: attempt.id,
          amount_usd: attempt.amountUsd,
          remaining_before_usd: attempt.remainingBeforeUsd,
          is_full: attempt.isFull,
          period_id: request.periodId,
          reason: request.reason,
          ...(standing
            ? { support_limit_usd: standing.limitUsd, support_refunded_on_period_usd: standing.usedUsd }
            : {}),
        },
      });
      return attempt;
    });
  } catch (error) {
    if (error instanceof OverLimitAtInsert) return refuseOverLimit(db, actor, request, error.standing);
    throw error;
  }
  if (inserted) return driveRefundAttempt(db, inserted, drive);

  // Someone else stored the same intent a moment ago (a double click, a second tab): join their attempt.
  const raced = await findAttemptByIntent(db, request.gameId, intentKey);
  if (raced) return joinAttempt(db, raced, actor, drive);
  await refuseWhileOpen(db, request);
  throw new AppError(
    "CONFLICT",
    "Another refund on this period was just recorded: nothing was refunded by this one. Reload the period and review " +
      "again.",
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls the service for a stored attempt, unless another request holds it; then waits (up to `waitMs`) for that
 * request's outcome instead of calling too.
 */
export async function driveRefundAttempt(
  db: Db,
  attempt: RefundAttempt,
  options: DriveOptions = {},
): Promise<RefundOutcome> {
  const waitMs = options.waitMs ?? 45_000;
  const deadline = Date.now() + waitMs;
  const clock = options.clock ?? SYSTEM_CLOCK;
  let current = attempt;
  const callsSeen = attempt.calls;
  for (;;) {
    if (current.status !== "pending") return settledOutcome(current);
    // A call made by someone else since this request looked settles this request too; it does not call again.
    const nowMs = await clock.leaseNow(db);
    if (current.calls > callsSeen && (current.claimedUntil === null || current.claimedUntil.getTime() < nowMs)) {
      return settledOutcome(current);
    }
    const claimed = await claimRefundAttempt(db, current.id, { leaseMs: LEASE_MS, nowMs });
    if (claimed) return callService(db, claimed, options);
    if (Date.now() >= deadline) return { attempt: current, state: "in_progress", message: inProgressMessage(current) };
    await sleep(200);
    current = (await findRefundAttempt(db, current.gameId, current.id)) ?? current;
  }
}
