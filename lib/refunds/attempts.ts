import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import {
  claimRefundAttempt,
  findAttemptByIntent,
  findOpenAttemptForPeriod,
  findRefundAttempt,
  finishRefundAttempt,
  insertRefundAttempt,
  markAttemptPeriodChecked,
  sumPeriodRefundsByRoles,
  type AttemptFinish,
  type RefundAttempt,
} from "@/db/queries/refunds";
import { recordAudit } from "@/lib/audit";
import { hasRole, ROLES, type Role } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { formatUsd, isDecimalString, money, sameAmount } from "@/lib/money";
import type { ServiceClientConfig } from "@/lib/service/client";
import { isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import type { PeriodReport, RefundAlreadyProcessed, RefundReceipt } from "@/lib/service/schemas";
import { markRefundWindowStale } from "./effects";
import { computeRefundImpact, type RefundImpact } from "./impact";
import { newClientRequestId, refundIntentKey } from "./intent";
import { classifyRefundFailure, describeRefundFailure } from "./messages";
import { wasRecipientPaidFor } from "./paid-status";
import { readSupportRefundLimit } from "./settings";
import { comparePeriodWithReview, confirmReplayedRefund, type AttemptParameters } from "./verify";

export type RefundActor = { id: string; email: string; role: Role };
/** Whoever makes a call happen, for the audit log: a signed-in user, or null for the system (the reconciler). */
export type CallDriver = { id: string; email: string } | null;

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

export type RefundOutcome = {
  attempt: RefundAttempt;
  /** "in_progress": another request holds the attempt and had not finished when this one stopped waiting. */
  state: RefundAttempt["status"] | "in_progress";
  message: string;
};

export type DriveOptions = {
  /** How long a request waits for another request's call on the same attempt. */
  waitMs?: number;
  /** Where the call comes from: a person's request, or the background reconciler. */
  source?: "desk" | "reconciler";
  /**
   * The person whose request makes the call (the one who pressed Refund or Retry, or joined from a second tab); the
   * audit log names them, and the attempt's requester as `requested_by`. Ignored for the reconciler (the system).
   */
  driver?: CallDriver;
  client?: Partial<ServiceClientConfig>;
};

/** Longest a request may hold an attempt: five tries of 20 s plus backoff fit well inside it. */
const LEASE_SECONDS = 180;
/** Calls (each with its own in-call retries) after which a pending attempt is handed to a person. */
export const MAX_CALLS_BEFORE_ATTENTION = 60;
const INTERACTIVE_CLIENT: Partial<ServiceClientConfig> = { timeoutMs: 20_000, maxRetries: 4 };

function targetOf(attempt: { subscriptionId: string; periodSeq: number }): string {
  return `${attempt.subscriptionId} period ${attempt.periodSeq}`;
}

/** The period as the service reports it now, and what refunding `amountUsd` of it would do. */
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
      throw new AppError("SERVICE_ERROR", `Could not read the period from the service (${error.message}). Nothing was refunded.`, {
        cause: error,
      });
    }
    throw error;
  }
  if (input.subscriptionId && report.subscription.subscription_id !== input.subscriptionId) {
    throw new AppError("INVALID_INPUT", "This period belongs to another subscription; open the refund from the period page.");
  }
  const recipientAlreadyPaid = report.period.attribution ? await wasRecipientPaidFor(db, gameId, report.period.period_id) : false;
  const impact = computeRefundImpact(report, { amountUsd: input.amountUsd, nowMs: Date.now(), recipientAlreadyPaid });
  return { report, impact };
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
  const usedUsd = await sumPeriodRefundsByRoles(db, { ...target, roles: LIMITED_ROLES, excludeAttemptId: options.excludeAttemptId });
  const available = money(limitUsd).minus(money(usedUsd));
  return { limitUsd: formatUsd(limitUsd), usedUsd: formatUsd(usedUsd), availableUsd: formatUsd(available.isNegative() ? money("0") : available) };
}

export function exceedsSupportLimit(standing: SupportLimitStanding, amountUsd: string): boolean {
  return money(standing.usedUsd).plus(money(amountUsd)).gt(money(standing.limitUsd));
}

export function describeOverLimit(standing: SupportLimitStanding, amountUsd: string): string {
  const amount = formatUsd(amountUsd);
  if (money(standing.usedUsd).isZero()) {
    return `Support may refund up to USD ${standing.limitUsd} per period, in total; USD ${amount} needs a finance user.`;
  }
  return `Support may refund up to USD ${standing.limitUsd} per period, in total, and support has already refunded USD ${standing.usedUsd} of this period; another USD ${amount} needs a finance user (support may refund at most USD ${standing.availableUsd} more).`;
}

/**
 * Refuses a refund the actor may not make alone: users below finance up to the configured limit per period, in
 * total; finance and admin any amount. The refusal is recorded. Returns the standing it checked, null for finance.
 */
export async function checkRefundLimit(db: Db, actor: RefundActor, request: RefundRequest): Promise<SupportLimitStanding | null> {
  if (hasRole(actor.role, "finance")) return null;
  const standing = await readSupportLimitStanding(db, request);
  if (!exceedsSupportLimit(standing, request.amountUsd)) return standing;
  return refuseOverLimit(db, actor, request, standing);
}

async function refuseOverLimit(db: Db, actor: RefundActor, request: RefundRequest, standing: SupportLimitStanding): Promise<never> {
  await recordAudit(db, {
    actor,
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
  throw new AppError("FORBIDDEN", describeOverLimit(standing, request.amountUsd), { field: "amountUsd" });
}

/** Thrown inside the storing transaction to undo the insert when the limit no longer holds. */
class OverLimitAtInsert extends Error {
  constructor(readonly standing: SupportLimitStanding) {
    super("over the support refund limit");
  }
}

const playerBlockSchema = z.object({ player_email: z.string().trim().min(3).max(254).includes("@") });

/**
 * The player's email, as the service knows the subscription's player ("include_player (boolean, default false) adds a
 * player block"). Kept with the attempt for the receipt page's links; never taken from what a browser sends.
 */
async function readPlayerEmail(db: Db, gameId: string, subscriptionId: string, clientOverrides: Partial<ServiceClientConfig>): Promise<string | null> {
  try {
    const client = await serviceClientForGame(db, gameId, { ...INTERACTIVE_CLIENT, ...clientOverrides });
    const response = await client.getSubscription(subscriptionId, { includePlayer: true });
    const parsed = playerBlockSchema.safeParse(response.player);
    return parsed.success ? parsed.data.player_email : null;
  } catch (error) {
    // The email only labels the attempt; a refund is not held back because the player could not be read.
    log.warn("could not read the subscription's player for a refund", { game: gameId, subscription: subscriptionId, error });
    return null;
  }
}

/**
 * Makes a refund exactly once. The attempt (key, actor, parameters, what the person was shown) is stored before the
 * service is called; the same intent always reaches the same attempt; the call is made by one request at a time and
 * every retry sends the stored key and parameters.
 */
export async function requestRefund(db: Db, request: RefundRequest, actor: RefundActor, options: DriveOptions = {}): Promise<RefundOutcome> {
  const drive: DriveOptions = { ...options, source: "desk", driver: { id: actor.id, email: actor.email } };
  const intentKey = refundIntentKey(request);

  // Joining the attempt of the same intent never refunds more than that attempt: its limit was checked when stored.
  const existing = await findAttemptByIntent(db, request.gameId, intentKey);
  if (existing) return driveRefundAttempt(db, existing, drive);

  const limited = !hasRole(actor.role, "finance");
  const standing = await checkRefundLimit(db, actor, request);

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
    throw new AppError("INVALID_INPUT", "The period number does not match the period; open the refund from the period page again.");
  }
  if (!impact.refundable || !sameAmount(impact.remainingUsd, request.remainingBeforeUsd)) {
    // The same intent may have been stored and refunded by a double click while this request read the period.
    const joined = await findAttemptByIntent(db, request.gameId, intentKey);
    if (joined) return driveRefundAttempt(db, joined, drive);
  }
  if (!impact.refundable) throw new AppError("CONFLICT", impact.effects[0] ?? "This period cannot be refunded.");
  if (!sameAmount(impact.remainingUsd, request.remainingBeforeUsd)) {
    throw new AppError(
      "CONFLICT",
      `The period changed since it was reviewed: USD ${impact.remainingUsd} remains refundable now (it was USD ${formatUsd(
        request.remainingBeforeUsd,
      )}). Review the refund again.`,
      { field: "amountUsd" },
    );
  }
  if (money(request.amountUsd).gt(money(impact.remainingUsd))) {
    throw new AppError("INVALID_INPUT", `must be at most the remaining refundable USD ${impact.remainingUsd}`, { field: "amountUsd" });
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
      if (limited) {
        // Checked again with the row in place: a refund by the same group that landed since the first check counts too.
        const now = await readSupportLimitStanding(trx, request, { limitUsd: standing?.limitUsd, excludeAttemptId: attempt.id });
        if (exceedsSupportLimit(now, attempt.amountUsd)) throw new OverLimitAtInsert(now);
      }
      await recordAudit(trx, {
        actor,
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
          ...(standing ? { support_limit_usd: standing.limitUsd, support_refunded_on_period_usd: standing.usedUsd } : {}),
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
  if (raced) return driveRefundAttempt(db, raced, drive);
  const open = await findOpenAttemptForPeriod(db, request.gameId, request.subscriptionId, request.periodSeq);
  if (open) {
    throw new AppError(
      "CONFLICT",
      `A refund of USD ${open.amountUsd} on this period is ${
        open.status === "pending" ? "still being processed" : "waiting for manual attention"
      } (started by ${open.actorEmail ?? "the system"}). Nothing else can be refunded on this period until it is settled.`,
    );
  }
  throw new AppError("CONFLICT", "Another refund on this period was just recorded; reload the period and review again.");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls the service for a stored attempt, unless another request holds it; then waits (up to `waitMs`) for that
 * request's outcome instead of calling too.
 */
export async function driveRefundAttempt(db: Db, attempt: RefundAttempt, options: DriveOptions = {}): Promise<RefundOutcome> {
  const waitMs = options.waitMs ?? 45_000;
  const deadline = Date.now() + waitMs;
  let current = attempt;
  const callsSeen = attempt.calls;
  for (;;) {
    if (current.status !== "pending") return settledOutcome(current);
    // A call made by someone else since this request looked settles this request too; it does not call again.
    if (current.calls > callsSeen && (current.claimedUntil === null || current.claimedUntil < new Date())) {
      return settledOutcome(current);
    }
    const claimed = await claimRefundAttempt(db, current.id, LEASE_SECONDS);
    if (claimed) return callService(db, claimed, options);
    if (Date.now() >= deadline) return { attempt: current, state: "in_progress", message: inProgressMessage(current) };
    await sleep(200);
    current = (await findRefundAttempt(db, current.gameId, current.id)) ?? current;
  }
}

function inProgressMessage(attempt: RefundAttempt): string {
  return `The refund of USD ${attempt.amountUsd} is being processed by another request with the same request id; this page shows its outcome when it is known. Do not refund again.`;
}

function settledOutcome(attempt: RefundAttempt): RefundOutcome {
  switch (attempt.status) {
    case "succeeded":
      return {
        attempt,
        state: "succeeded",
        message: `Refunded USD ${attempt.amountUsd}${attempt.transactionId ? ` (transaction ${attempt.transactionId})` : ""}.`,
      };
    case "pending":
      return { attempt, state: "pending", message: attempt.lastErrorMessage ?? inProgressMessage(attempt) };
    case "resolved":
      return { attempt, state: "resolved", message: `Settled by hand: ${attempt.resolutionNote ?? ""}` };
    default:
      return { attempt, state: attempt.status, message: attempt.lastErrorMessage ?? "The refund did not go through." };
  }
}

/** The receipt must be the refund that was asked for; anything else is for a person to look at. */
function receiptMismatch(attempt: RefundAttempt, receipt: RefundReceipt): string | null {
  if (receipt.subscription_id !== attempt.subscriptionId) return "subscription_id";
  if (receipt.period_seq !== attempt.periodSeq) return "period_seq";
  if (!sameAmount(receipt.refunded_amount_usd, attempt.amountUsd)) return "refunded_amount_usd";
  if (receipt.client_request_id !== attempt.clientRequestId) return "client_request_id";
  return null;
}

/** The stored parameters the checks compare with: what was sent, and what the person reviewed. */
function parametersOf(attempt: RefundAttempt): AttemptParameters {
  const reviewed = attempt.impact.refundedToDateUsd;
  return {
    subscriptionId: attempt.subscriptionId,
    periodSeq: attempt.periodSeq,
    amountUsd: attempt.amountUsd,
    clientRequestId: attempt.clientRequestId,
    remainingBeforeUsd: attempt.remainingBeforeUsd,
    reviewedRefundedToDateUsd: typeof reviewed === "string" && isDecimalString(reviewed) ? reviewed : null,
  };
}

type Client = Awaited<ReturnType<typeof serviceClientForGame>>;

/**
 * Before an attempt is first sent, the period is read again: a refund that landed between the person's review and
 * the stored attempt (another tab, a colleague) changes what remains, and the attempt is refused without a call, so
 * the person reviews the new remaining amount. Returns how the attempt ends this turn unsent, or null to send it.
 */
async function checkPeriodBeforeFirstCall(client: Client, attempt: RefundAttempt): Promise<AttemptFinish | null> {
  if (attempt.periodId === null) {
    return {
      status: "failed",
      errorCode: "PERIOD_UNKNOWN",
      errorMessage: "The refund does not name its period id, so the period could not be checked before sending. Nothing was sent to the service; review the refund again from the period page.",
      errorDetail: null,
    };
  }
  let report: PeriodReport;
  try {
    report = await client.getPeriodReport(attempt.periodId, { subscriptionId: attempt.subscriptionId });
  } catch (error) {
    return periodReadFailure(attempt, error);
  }
  const check = comparePeriodWithReview(report, parametersOf(attempt));
  if (check.unchanged) return null;
  return {
    status: "failed",
    errorCode: "PERIOD_CHANGED",
    errorMessage: `The period changed after this refund was reviewed: USD ${check.remainingUsd} remains refundable now (it was USD ${formatUsd(
      attempt.remainingBeforeUsd,
    )}; USD ${check.refundedToDateUsd} refunded to date). Nothing was sent to the service; review the refund again.`,
    errorDetail: {
      remaining_refundable_usd: check.remainingUsd,
      already_refunded_usd: check.refundedToDateUsd,
      reviewed_remaining_usd: formatUsd(attempt.remainingBeforeUsd),
      reviewed_refunded_to_date_usd: parametersOf(attempt).reviewedRefundedToDateUsd,
      reason: check.reason,
    },
  };
}

/**
 * The period could not be read before the first call. Nothing was sent: a refusal of the read frees the intent (the
 * person reviews again); any other failure keeps the attempt pending, to be checked and sent by the next taker.
 */
function periodReadFailure(attempt: RefundAttempt, error: unknown): AttemptFinish {
  const status = isServiceError(error) ? error.status : null;
  const code = isServiceError(error) ? (error.code ?? error.codePublic ?? (error.kind === "http" ? `HTTP_${error.status}` : error.kind.toUpperCase())) : "LOCAL_ERROR";
  const errorDetail = isServiceError(error) ? { http_status: error.status, error_code: error.code, error_id: error.errorId, step: "period_check" } : { step: "period_check" };
  if (!isServiceError(error)) log.error("refund period check failed before an answer", { attempt: attempt.id, error });
  const permanent = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (permanent) {
    return {
      status: "failed",
      errorCode: code,
      errorMessage: `The period could not be read from the service before sending the refund (${code}). Nothing was sent to the service; review the refund again from the period page.`,
      errorDetail,
    };
  }
  return {
    status: "pending",
    errorCode: code,
    errorMessage: `The period could not be read from the service before sending the refund (${code}). Nothing has been sent yet: the refund is kept pending with the same request id and is checked and sent automatically; do not start another refund for this period.`,
    errorDetail,
  };
}

/**
 * "if the receipt was lost, a reduced body with transaction_id and a note that the refund was already processed": the
 * body names no amount, so it is believed only once the period report shows that refund.
 */
async function confirmReplay(client: Client, attempt: RefundAttempt, replay: RefundAlreadyProcessed): Promise<AttemptFinish & { confirmedBy?: string }> {
  const unconfirmed = (reason: string): AttemptFinish => ({
    status: "needs_attention",
    errorCode: "REPLAY_UNCONFIRMED",
    errorMessage: `The service answered that this refund was already processed (transaction ${replay.transaction_id}) without its receipt, but ${reason}. It needs manual attention: do not refund again; ask the service what happened to request id ${attempt.clientRequestId}.`,
    errorDetail: { transaction_id: replay.transaction_id, replay_client_request_id: replay.client_request_id ?? null, reason },
  });
  if (attempt.periodId === null) return unconfirmed("the refund does not name its period id, so the period could not be checked");
  let report: PeriodReport;
  try {
    report = await client.getPeriodReport(attempt.periodId, { subscriptionId: attempt.subscriptionId });
  } catch (error) {
    const code = isServiceError(error) ? (error.code ?? `HTTP_${error.status ?? "?"}`) : "LOCAL_ERROR";
    return exhaustedOr(attempt, {
      status: "pending",
      errorCode: "REPLAY_CHECK_FAILED",
      errorMessage: `The service answered that this refund was already processed (transaction ${replay.transaction_id}), but the period could not be read to confirm it (${code}). It is kept pending with the same request id and checked again automatically; do not start another refund for this period.`,
      errorDetail: { transaction_id: replay.transaction_id, error_code: code },
    });
  }
  const confirmation = confirmReplayedRefund(report, parametersOf(attempt), replay);
  if (!confirmation.confirmed) return unconfirmed(confirmation.reason);
  return {
    status: "succeeded",
    receipt: null,
    transactionId: replay.transaction_id,
    refundedAt: confirmation.refundedAt,
    idempotentReplay: true,
    confirmedBy: confirmation.matchedBy,
  };
}

async function callService(db: Db, claimed: RefundAttempt, options: DriveOptions): Promise<RefundOutcome> {
  let attempt = claimed;
  const source = options.source ?? "desk";
  // The person whose request made this call; the requester stays in the detail. The reconciler is the system.
  const driver = source === "desk" ? (options.driver ?? null) : null;
  const audit = (action: string, outcome: string, detail: Record<string, unknown>) => ({
    actor: driver,
    action,
    gameId: attempt.gameId,
    target: targetOf(attempt),
    idempotencyKey: attempt.clientRequestId,
    outcome,
    detail: { attempt_id: attempt.id, call: attempt.calls, source, requested_by: attempt.actorEmail, ...detail },
  });

  let finish: (AttemptFinish & { confirmedBy?: string }) | null = null;
  // Set when the attempt ends this turn without anything sent (the period changed, or could not be read).
  let notSent = false;
  let httpAttempts = 0;
  try {
    const client = await serviceClientForGame(db, attempt.gameId, { ...INTERACTIVE_CLIENT, ...options.client });
    // Never sent: no check recorded and no call counted (attempts from before the check have calls or a check time).
    if (attempt.periodCheckedAt === null && attempt.calls === 0) {
      finish = await checkPeriodBeforeFirstCall(client, attempt);
      notSent = finish !== null;
      if (!finish) {
        // Stored before the call: from here on the attempt may have reached the service and is never refused unsent.
        const marked = await markAttemptPeriodChecked(db, attempt.id);
        if (!marked) return settledOutcome((await findRefundAttempt(db, attempt.gameId, attempt.id)) ?? attempt);
        attempt = marked;
      }
    }
    if (!finish) {
      const before = client.stats().attempts;
      let result: Awaited<ReturnType<Client["refundSubscription"]>>;
      try {
        // Every call sends what the row holds: the same key and the same parameters as the first.
        result = await client.refundSubscription(attempt.subscriptionId, {
          clientRequestId: attempt.clientRequestId,
          periodSeq: attempt.periodSeq,
          amountUsd: formatUsd(attempt.amountUsd),
          reason: attempt.reason ?? undefined,
        });
      } finally {
        httpAttempts = client.stats().attempts - before;
      }
      if (result.outcome === "refunded") {
        const mismatch = receiptMismatch(attempt, result.receipt);
        finish = mismatch
          ? {
              status: "needs_attention",
              errorCode: "RECEIPT_MISMATCH",
              errorMessage: `The service's receipt does not match this refund (${mismatch} differs). It needs manual attention: do not refund again.`,
              errorDetail: { receipt: result.receipt },
            }
          : {
              status: "succeeded",
              receipt: result.receipt as unknown as Record<string, unknown>,
              transactionId: result.receipt.transaction_id,
              refundedAt: result.receipt.refunded_at,
              idempotentReplay: result.receipt.idempotent_replay,
            };
      } else {
        finish = await confirmReplay(client, attempt, result.replay);
      }
    }
  } catch (error) {
    finish = failureFinish(attempt, error);
  }
  const outcomeOf = finish;

  const finished = await db.transaction().execute(async (trx) => {
    const row = await finishRefundAttempt(trx, attempt.id, outcomeOf);
    if (!row) return null;
    const detail: Record<string, unknown> = notSent ? { sent: false } : { http_attempts: httpAttempts };
    if (outcomeOf.status === "succeeded") {
      Object.assign(detail, {
        transaction_id: outcomeOf.transactionId,
        refunded_at: outcomeOf.refundedAt,
        idempotent_replay: outcomeOf.idempotentReplay,
        refunded_amount_usd: row.amountUsd,
        receipt_available: outcomeOf.receipt !== null,
        ...(outcomeOf.confirmedBy ? { confirmed_from_period_by: outcomeOf.confirmedBy } : {}),
      });
    } else {
      Object.assign(detail, { error_code: outcomeOf.errorCode, message: outcomeOf.errorMessage });
    }
    const outcome = outcomeOf.status === "pending" ? "pending_retry" : outcomeOf.status;
    if (notSent) {
      // Nothing reached the service: the check before the first call is its own line, not a refund call.
      await recordAudit(trx, audit("refund.check", outcomeOf.status !== "succeeded" && outcomeOf.errorCode === "PERIOD_CHANGED" ? "superseded" : outcome, detail));
    } else {
      await recordAudit(trx, audit("refund.call", outcome, detail));
    }
    if (outcomeOf.status === "succeeded") {
      // A lost receipt leaves the time unknown when the period no longer lists the event: now is the closest window.
      await markRefundWindowStale(trx, row.gameId, row.refundedAt ?? new Date(), {
        attemptId: row.id,
        subscriptionId: row.subscriptionId,
        periodId: row.periodId,
        periodSeq: row.periodSeq,
      });
    }
    return row;
  });
  // Taken over after the hold ran out (a very slow call): whoever finished first recorded the outcome.
  const settled = finished ?? (await findRefundAttempt(db, attempt.gameId, attempt.id)) ?? attempt;
  const outcome = settledOutcome(settled);
  if (settled.status === "succeeded" && settled.idempotentReplay) {
    outcome.message += " The service confirmed it from an earlier call with the same request id; nothing was refunded twice.";
  }
  return outcome;
}

function failureFinish(attempt: RefundAttempt, error: unknown): AttemptFinish {
  if (!isServiceError(error)) {
    log.error("refund call failed before an answer", { attempt: attempt.id, error });
    return exhaustedOr(attempt, {
      status: "pending",
      errorCode: "LOCAL_ERROR",
      errorMessage:
        "Payout Desk could not complete the call. The refund is kept pending with the same request id and is retried automatically; do not start another refund for this period.",
      errorDetail: null,
    });
  }
  const failure = {
    kind: error.kind,
    status: error.status,
    code: error.code,
    codePublic: error.codePublic,
    errorId: error.errorId,
    body: error.body,
  };
  const kind = classifyRefundFailure(failure);
  const errorDetail: Record<string, unknown> = {
    http_status: error.status,
    error_code: error.code,
    error_code_public: error.codePublic,
    error_id: error.errorId,
  };
  // Detail fields the spec promises on refusals (remaining_refundable_usd, period_status, ...); never the human text.
  for (const key of ["remaining_refundable_usd", "already_refunded_usd", "period_status", "refunded_amount_usd", "amount_usd"]) {
    if (error.body && typeof error.body[key] === "string") errorDetail[key] = error.body[key];
  }
  const message = describeRefundFailure(failure);
  const code = error.code ?? error.codePublic ?? (error.kind === "http" ? `HTTP_${error.status}` : error.kind.toUpperCase());
  if (kind === "manual_attention") return { status: "needs_attention", errorCode: code, errorMessage: message, errorDetail };
  if (kind === "refused") return { status: "failed", errorCode: code, errorMessage: message, errorDetail };
  return exhaustedOr(attempt, { status: "pending", errorCode: code, errorMessage: message, errorDetail });
}

function exhaustedOr(attempt: RefundAttempt, finish: AttemptFinish & { status: "pending" }): AttemptFinish {
  if (attempt.calls < MAX_CALLS_BEFORE_ATTENTION) return finish;
  return {
    ...finish,
    status: "needs_attention",
    errorMessage: `${finish.errorMessage} After ${attempt.calls} calls the service has still not confirmed it; it needs manual attention.`,
  };
}
