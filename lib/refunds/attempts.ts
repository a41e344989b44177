import "server-only";
import type { Db } from "@/db";
import {
  claimRefundAttempt,
  findAttemptByIntent,
  findOpenAttemptForPeriod,
  findRefundAttempt,
  finishRefundAttempt,
  insertRefundAttempt,
  type AttemptFinish,
  type RefundAttempt,
} from "@/db/queries/refunds";
import { recordAudit } from "@/lib/audit";
import { hasRole, type Role } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { formatUsd, money, sameAmount } from "@/lib/money";
import type { ServiceClientConfig } from "@/lib/service/client";
import { isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import type { PeriodReport, RefundReceipt } from "@/lib/service/schemas";
import { markRefundWindowStale } from "./effects";
import { computeRefundImpact, type RefundImpact } from "./impact";
import { newClientRequestId, refundIntentKey } from "./intent";
import { classifyRefundFailure, describeRefundFailure } from "./messages";
import { wasRecipientPaidFor } from "./paid-status";
import { readSupportRefundLimit } from "./settings";

export type RefundActor = { id: string; email: string; role: Role };

export type RefundRequest = {
  gameId: string;
  subscriptionId: string;
  periodId: number;
  periodSeq: number;
  amountUsd: string;
  /** The remaining refundable amount the person saw when confirming. */
  remainingBeforeUsd: string;
  reason: string | null;
  playerEmail: string | null;
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
  /** Who drives the call, for the audit log. */
  source?: "desk" | "reconciler";
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
): Promise<{ report: PeriodReport; impact: RefundImpact }> {
  const client = await serviceClientForGame(db, gameId, INTERACTIVE_CLIENT);
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

/**
 * Refuses a refund the actor may not make alone: support up to the configured limit, finance and admin any amount.
 * The refusal is recorded.
 */
export async function checkRefundLimit(db: Db, actor: RefundActor, request: RefundRequest): Promise<void> {
  if (hasRole(actor.role, "finance")) return;
  const limit = await readSupportRefundLimit(db);
  if (money(request.amountUsd).lte(money(limit.amountUsd))) return;
  await recordAudit(db, {
    actor,
    action: "refund.request",
    gameId: request.gameId,
    target: targetOf(request),
    outcome: "refused_over_limit",
    detail: { amount_usd: formatUsd(request.amountUsd), support_limit_usd: limit.amountUsd, role: actor.role },
  });
  throw new AppError(
    "FORBIDDEN",
    `Support may refund up to USD ${limit.amountUsd} at a time; USD ${formatUsd(request.amountUsd)} needs a finance user.`,
    { field: "amountUsd" },
  );
}

/**
 * Makes a refund exactly once. The attempt (key, actor, parameters, what the person was shown) is stored before the
 * service is called; the same intent always reaches the same attempt; the call is made by one request at a time and
 * every retry sends the stored key and parameters.
 */
export async function requestRefund(db: Db, request: RefundRequest, actor: RefundActor, options: DriveOptions = {}): Promise<RefundOutcome> {
  await checkRefundLimit(db, actor, request);
  const intentKey = refundIntentKey(request);

  const existing = await findAttemptByIntent(db, request.gameId, intentKey);
  if (existing) return driveRefundAttempt(db, existing, options);

  // The period must still look like what the person confirmed; otherwise they review it again.
  const { impact } = await previewRefund(db, request.gameId, {
    periodId: request.periodId,
    subscriptionId: request.subscriptionId,
    amountUsd: request.amountUsd,
  });
  if (impact.periodSeq !== request.periodSeq) {
    throw new AppError("INVALID_INPUT", "The period number does not match the period; open the refund from the period page again.");
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
  const inserted = await db.transaction().execute(async (trx) => {
    const attempt = await insertRefundAttempt(trx, {
      gameId: request.gameId,
      subscriptionId: request.subscriptionId,
      periodSeq: request.periodSeq,
      periodId: request.periodId,
      playerEmail: request.playerEmail,
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
      },
    });
    return attempt;
  });
  if (inserted) return driveRefundAttempt(db, inserted, options);

  // Someone else stored the same intent a moment ago (a double click, a second tab): join their attempt.
  const raced = await findAttemptByIntent(db, request.gameId, intentKey);
  if (raced) return driveRefundAttempt(db, raced, options);
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

async function callService(db: Db, attempt: RefundAttempt, options: DriveOptions): Promise<RefundOutcome> {
  const source = options.source ?? "desk";
  const audit = (outcome: string, detail: Record<string, unknown>) => ({
    actor: source === "desk" && attempt.actorId && attempt.actorEmail ? { id: attempt.actorId, email: attempt.actorEmail } : null,
    action: "refund.call",
    gameId: attempt.gameId,
    target: targetOf(attempt),
    idempotencyKey: attempt.clientRequestId,
    outcome,
    detail: { attempt_id: attempt.id, call: attempt.calls, source, ...detail },
  });

  let finish: AttemptFinish;
  let httpAttempts = 0;
  try {
    const client = await serviceClientForGame(db, attempt.gameId, { ...INTERACTIVE_CLIENT, ...options.client });
    try {
      // Every call sends what the row holds: the same key and the same parameters as the first.
      const result = await client.refundSubscription(attempt.subscriptionId, {
        clientRequestId: attempt.clientRequestId,
        periodSeq: attempt.periodSeq,
        amountUsd: formatUsd(attempt.amountUsd),
        reason: attempt.reason ?? undefined,
      });
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
        // "if the receipt was lost, a reduced body with transaction_id": the refund happened; find when from the period.
        const refundedAt = await findRefundTime(client, attempt, result.replay.transaction_id);
        finish = {
          status: "succeeded",
          receipt: null,
          transactionId: result.replay.transaction_id,
          refundedAt,
          idempotentReplay: true,
        };
      }
    } finally {
      httpAttempts = client.stats().attempts;
    }
  } catch (error) {
    finish = failureFinish(attempt, error);
  }

  const finished = await db.transaction().execute(async (trx) => {
    const row = await finishRefundAttempt(trx, attempt.id, finish);
    if (!row) return null;
    const detail: Record<string, unknown> = { http_attempts: httpAttempts };
    if (finish.status === "succeeded") {
      Object.assign(detail, {
        transaction_id: finish.transactionId,
        refunded_at: finish.refundedAt,
        idempotent_replay: finish.idempotentReplay,
        refunded_amount_usd: row.amountUsd,
        receipt_available: finish.receipt !== null,
      });
    } else {
      Object.assign(detail, { error_code: finish.errorCode, message: finish.errorMessage });
    }
    await recordAudit(trx, audit(finish.status === "pending" ? "pending_retry" : finish.status, detail));
    if (finish.status === "succeeded") {
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

async function findRefundTime(
  client: Awaited<ReturnType<typeof serviceClientForGame>>,
  attempt: RefundAttempt,
  transactionId: string,
): Promise<string | null> {
  if (attempt.periodId === null) return null;
  try {
    const report = await client.getPeriodReport(attempt.periodId, { subscriptionId: attempt.subscriptionId });
    return report.refunds.events.find((e) => e.refund_transaction_id === transactionId)?.refunded_at ?? null;
  } catch {
    return null;
  }
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
