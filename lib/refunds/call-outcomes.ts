import "server-only";
import { parseServiceInstant } from "@/lib/time";
import type { AttemptFinish, RefundAttempt } from "@/db/queries/refunds";
import { log } from "@/lib/log";
import { formatUsd, isDecimalString, sameAmount } from "@/lib/money";
import { formatUsdText } from "@/lib/format";
import { isServiceError } from "@/lib/service/errors";
import type { RefundReceipt } from "@/lib/service/schemas";
import { classifyRefundFailure, describeRefundFailure } from "./messages";
import type { RefundImpact } from "./impact";
import type { AttemptParameters, PeriodCheck } from "./verify";

/** How a refund call's answers leave its attempt: pure decisions, recorded by lib/refunds/call.ts. */

/** Calls (each with its own in-call retries) after which a pending attempt is handed to a person. */
export const MAX_CALLS_BEFORE_ATTENTION = 60;

/** The receipt must be the refund that was asked for; anything else is for a person to look at. */
export function receiptMismatch(attempt: RefundAttempt, receipt: RefundReceipt): string | null {
  if (receipt.subscription_id !== attempt.subscriptionId) return "subscription_id";
  if (receipt.period_seq !== attempt.periodSeq) return "period_seq";
  if (!sameAmount(receipt.refunded_amount_usd, attempt.amountUsd)) return "refunded_amount_usd";
  if (receipt.client_request_id !== attempt.clientRequestId) return "client_request_id";
  return null;
}

/** The stored parameters the checks compare with: what was sent, and what the person reviewed. */
export function parametersOf(attempt: RefundAttempt): AttemptParameters {
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

/**
 * How long a confirmed refund may wait unsent for its period to be read: past it, a refund the person confirmed is
 * not sent on their behalf any more (the period may have changed, the player been answered otherwise), and the
 * period is freed for a refund reviewed anew.
 */
export const UNSENT_GIVE_UP_MS = 60 * 60_000;

/** Whether an attempt never sent was confirmed UNSENT_GIVE_UP_MS or more ago (`nowMs` on the database's clock). */
export function unsentTooLong(attempt: RefundAttempt, nowMs: number): boolean {
  return nowMs - attempt.createdAt.getTime() >= UNSENT_GIVE_UP_MS;
}

/**
 * An attempt never sent, confirmed an hour ago or more (its period could not be read until now, or no worker took it):
 * it fails unsent, as the person was told, however the period reads now.
 */
export function gaveUpUnsent(): AttemptFinish {
  return {
    status: "failed",
    errorCode: "NOT_SENT_IN_TIME",
    errorMessage:
      "The refund could not be sent within an hour of its confirmation. Nothing was sent to the service and the " +
      "refund was not made; review it again from the period page.",
    errorDetail: { step: "period_check", gave_up_unsent: true },
  };
}

/** The period changed after the review (another refund landed): refused unsent, saying what remains now. */
export function periodChanged(
  attempt: RefundAttempt,
  check: Extract<PeriodCheck, { unchanged: false }>,
): AttemptFinish {
  return {
    status: "failed",
    errorCode: "PERIOD_CHANGED",
    errorMessage:
      `The period changed after this refund was reviewed: ${formatUsdText(check.remainingUsd)} remains refundable ` +
      `now (it was ${formatUsdText(formatUsd(attempt.remainingBeforeUsd))}; ` +
      `${formatUsdText(check.refundedToDateUsd)} refunded to date). ` +
      "Nothing was sent to the service; review the refund again.",
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
 * The period's amounts are as reviewed, but it can no longer be refunded (its card charge disputed since the review):
 * refused unsent, saying why.
 */
export function notRefundableNow(impact: RefundImpact): AttemptFinish {
  return {
    status: "failed",
    errorCode: "PERIOD_NOT_REFUNDABLE",
    errorMessage: `${impact.effects[0] ?? "The period can no longer be refunded."} Nothing was sent to the service.`,
    errorDetail: { step: "period_check", blocker: impact.blocker },
  };
}

/**
 * The period could not be read before the first call. Nothing was sent: a refusal of the read frees the intent (the
 * person reviews again); any other failure keeps the attempt pending, to be checked and sent by the next taker, until
 * the attempt is UNSENT_GIVE_UP_MS old, when it fails unsent too.
 */
export function periodReadFailure(attempt: RefundAttempt, error: unknown, nowMs: number): AttemptFinish {
  const status = isServiceError(error) ? error.status : null;
  const code = isServiceError(error)
    ? (error.code ?? error.codePublic ?? (error.kind === "http" ? `HTTP_${error.status}` : error.kind.toUpperCase()))
    : "LOCAL_ERROR";
  const errorDetail = isServiceError(error)
    ? { http_status: error.status, error_code: error.code, error_id: error.errorId, step: "period_check" }
    : { step: "period_check" };
  if (!isServiceError(error)) log.error("refund period check failed before an answer", { attempt: attempt.id, error });
  const permanent = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (permanent) {
    return {
      status: "failed",
      errorCode: code,
      errorMessage:
        `The period could not be read from the service before sending the refund (${code}). Nothing was ` +
        `sent to the service; review the refund again from the period page.`,
      errorDetail,
    };
  }
  if (unsentTooLong(attempt, nowMs)) {
    return {
      status: "failed",
      errorCode: code,
      errorMessage:
        `The period could not be read from the service for an hour after the refund was confirmed (${code}). ` +
        `Nothing was sent to the service and the refund was not made; review it again from the period page.`,
      errorDetail: { ...errorDetail, gave_up_unsent: true },
    };
  }
  return {
    status: "pending",
    errorCode: code,
    errorMessage:
      `The period could not be read from the service before sending the refund (${code}). Nothing has ` +
      `been sent yet: the refund is kept pending with the same request id and is checked and sent automatically ` +
      `within an hour of its confirmation (else it fails unsent); ` +
      `do not start another refund for this period.`,
    errorDetail,
  };
}

/**
 * How a call that ended without a receipt leaves the attempt. `earlierUnknown`: an earlier call, or an earlier try of
 * this one, may have refunded without an answer; then a refusal says nothing about that try, and only a receipt or
 * the period report may end the attempt, so it goes to a person instead of freeing the intent.
 */
export function failureFinish(attempt: RefundAttempt, error: unknown, earlierUnknown: boolean): AttemptFinish {
  if (!isServiceError(error)) {
    log.error("refund call failed before an answer", { attempt: attempt.id, error });
    return exhaustedOr(attempt, {
      status: "pending",
      errorCode: "LOCAL_ERROR",
      errorMessage:
        "Payout Desk could not complete the call. The refund is kept pending with the same request id and is retried " +
        "automatically; do not start another refund for this period.",
      errorDetail: null,
    });
  }
  const kind = classifyRefundFailure(error);
  const errorDetail: Record<string, unknown> = {
    http_status: error.status,
    error_code: error.code,
    error_code_public: error.codePublic,
    error_id: error.errorId,
  };
  // Detail fields the spec promises on refusals (remaining_refundable_usd, period_status, ...); never the human text.
  for (const key of [
    "remaining_refundable_usd",
    "already_refunded_usd",
    "period_status",
    "refunded_amount_usd",
    "amount_usd",
  ]) {
    if (error.body && typeof error.body[key] === "string") errorDetail[key] = error.body[key];
  }
  const message = describeRefundFailure(error);
  const code =
    error.code ?? error.codePublic ?? (error.kind === "http" ? `HTTP_${error.status}` : error.kind.toUpperCase());
  if (kind === "manual_attention")
    return { status: "needs_attention", errorCode: code, errorMessage: message, errorDetail };
  if (kind === "refused" && earlierUnknown) {
    return {
      status: "needs_attention",
      errorCode: code,
      errorMessage:
        "An earlier call with this request id got no usable answer, so the service may have made this refund; " +
        `the service now answers ${error.status ?? "?"} ${code}, which says nothing about that call. ` +
        "It needs manual attention: do not refund again; ask the service what happened to request id " +
        `${attempt.clientRequestId} and record whether it was refunded.`,
      errorDetail: { ...errorDetail, earlier_outcome_unknown: true },
    };
  }
  if (kind === "refused") return { status: "failed", errorCode: code, errorMessage: message, errorDetail };
  return exhaustedOr(attempt, { status: "pending", errorCode: code, errorMessage: message, errorDetail });
}

export function exhaustedOr(attempt: RefundAttempt, finish: AttemptFinish & { status: "pending" }): AttemptFinish {
  if (attempt.calls < MAX_CALLS_BEFORE_ATTENTION) return finish;
  return {
    ...finish,
    status: "needs_attention",
    errorMessage:
      `${finish.errorMessage} After ${attempt.calls} calls the service has still not confirmed it; it ` +
      `needs manual attention.`,
  };
}

/**
 * The instant of the service's text (ISO 8601, as the client's schema checked it: a comma fraction, an offset, no zone
 * read as UTC), not the text itself, which PostgreSQL reads in the session's time zone or refuses.
 */
export function serviceInstant(text: string | null): Date | null {
  const ms = text === null ? null : parseServiceInstant(text);
  return ms === null ? null : new Date(ms);
}
