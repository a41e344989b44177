import "server-only";
import type { Db } from "@/db";
import { markAttemptPeriodChecked } from "@/db/queries/refund-leases";
import { findRefundAttempt, finishRefundAttempt, type AttemptFinish, type RefundAttempt } from "@/db/queries/refunds";
import { recordAudit } from "@/lib/audit";
import { log } from "@/lib/log";
import { formatUsd } from "@/lib/money";
import type { RequestLogEntry, ServiceClientConfig } from "@/lib/service/client";
import { isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import type { PeriodReport, RefundAlreadyProcessed } from "@/lib/service/schemas";
import { markRefundWindowStale } from "./effects";
import { holdLease, SYSTEM_CLOCK, type LeaseClock } from "./lease";
import {
  exhaustedOr,
  failureFinish,
  gaveUpUnsent,
  notRefundableNow,
  parametersOf,
  periodChanged,
  periodReadFailure,
  receiptMismatch,
  serviceInstant,
  unsentTooLong,
} from "./call-outcomes";
import { UNANSWERED, unknownExchange } from "./unknown-outcome";
import { comparePeriodWithReview, confirmReplayedRefund } from "./verify";
import { chargebackOfPeriod } from "./chargeback";
import { computeRefundImpact } from "./impact";
import { formatUsdText } from "@/lib/format";
import type { Actor } from "@/core/actor";

/**
 * One turn of a refund attempt held by this request: the check of the period before the first call, the call with
 * the stored key and parameters, and the record of its outcome with its audit line.
 */

/** Whoever makes a call happen, for the audit log: a signed-in user, or null for the system (the reconciler). */
export type CallDriver = Actor | null;

export type RefundOutcome = {
  attempt: RefundAttempt;
  /** "in_progress": another request holds the attempt and had not finished when this one stopped waiting. */
  state: RefundAttempt["status"] | "in_progress";
  message: string;
};

/** Test seams around the call: each runs at its step and may hold the step back. */
export type CallHooks = {
  /** The attempt is marked sent; the request is about to go out. */
  beforeCall?: (attempt: RefundAttempt) => Promise<void> | void;
  /** The service answered; the answer is about to be stored. */
  afterAnswer?: (attempt: RefundAttempt) => Promise<void> | void;
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
  /** Time of the hold on the attempt; the system clock unless a test drives it. */
  clock?: LeaseClock;
  hooks?: CallHooks;
};

export { MAX_CALLS_BEFORE_ATTENTION } from "./call-outcomes";
export const INTERACTIVE_CLIENT: Partial<ServiceClientConfig> = { timeoutMs: 20_000, maxRetries: 4 };

export function targetOf(attempt: { subscriptionId: string; periodSeq: number }): string {
  return `${attempt.subscriptionId} period ${attempt.periodSeq}`;
}

export function inProgressMessage(attempt: RefundAttempt): string {
  return (
    `The refund of ${formatUsdText(attempt.amountUsd)} is being processed by another request with the same ` +
    "request id; this page shows its outcome when it is known. Do not refund again."
  );
}

export function settledOutcome(attempt: RefundAttempt): RefundOutcome {
  switch (attempt.status) {
    case "succeeded":
      return {
        attempt,
        state: "succeeded",
        message: `Refunded ${formatUsdText(attempt.amountUsd)}${
          attempt.transactionId ? ` (transaction ${attempt.transactionId})` : ""
        }.`,
      };
    case "pending":
      return { attempt, state: "pending", message: attempt.lastErrorMessage ?? inProgressMessage(attempt) };
    case "resolved":
      return {
        attempt,
        state: "resolved",
        message: `Settled by hand${
          attempt.resolutionOutcome === "refunded" ? `: ${formatUsdText(attempt.amountUsd)} was refunded` : ""
        }. ${attempt.resolutionNote ?? ""}`.trim(),
      };
    default:
      return { attempt, state: attempt.status, message: attempt.lastErrorMessage ?? "The refund did not go through." };
  }
}

type Client = Awaited<ReturnType<typeof serviceClientForGame>>;

/**
 * Before an attempt is first sent, the period is read again: a refund that landed between the person's review and
 * the stored attempt (another tab, a colleague) changes what remains, and the attempt is refused without a call, so
 * the person reviews the new remaining amount. Returns how the attempt ends this turn unsent, or null to send it.
 */
async function checkPeriodBeforeFirstCall(
  db: Db,
  client: Client,
  attempt: RefundAttempt,
  signal: AbortSignal,
  clock: LeaseClock,
): Promise<AttemptFinish | null> {
  // The person was told a refund not sent within the hour fails unsent: it is not sent later, however the period reads.
  const nowMs = await clock.leaseNow(db);
  if (unsentTooLong(attempt, nowMs)) return gaveUpUnsent();
  if (attempt.periodId === null) {
    return {
      status: "failed",
      errorCode: "PERIOD_UNKNOWN",
      errorMessage:
        "The refund does not name its period id, so the period could not be checked before sending. " +
        "Nothing was sent to the service; review the refund again from the period page.",
      errorDetail: null,
    };
  }
  let report: PeriodReport;
  try {
    report = await client.getPeriodReport(attempt.periodId, { subscriptionId: attempt.subscriptionId }, { signal });
  } catch (error) {
    return periodReadFailure(attempt, error, nowMs);
  }
  const check = comparePeriodWithReview(report, parametersOf(attempt));
  if (!check.unchanged) return periodChanged(attempt, check);
  // The amounts are as reviewed; a dispute of the period's card charge may have come since (a refund on top of a lost
  // chargeback would pay the cardholder twice).
  const chargeback = await chargebackOfPeriod(db, attempt.gameId, report.period);
  const amountUsd = formatUsd(attempt.amountUsd);
  const impact = computeRefundImpact(report, { amountUsd, nowMs, recipientAlreadyPaid: false, chargeback });
  return impact.refundable ? null : notRefundableNow(impact);
}

/**
 * "if the receipt was lost, a reduced body with transaction_id and a note that the refund was already processed": the
 * body names no amount, so it is believed only once the period report shows that refund.
 */
async function confirmReplay(
  client: Client,
  attempt: RefundAttempt,
  replay: RefundAlreadyProcessed,
  signal: AbortSignal,
): Promise<AttemptFinish & { confirmedBy?: string }> {
  const unconfirmed = (reason: string): AttemptFinish => ({
    status: "needs_attention",
    errorCode: "REPLAY_UNCONFIRMED",
    errorMessage:
      `The service answered that this refund was already processed (transaction ${replay.transaction_id}) ` +
      `without its receipt, but ${reason}. It needs manual attention: do not refund again; ` +
      `ask the service what happened to request id ${attempt.clientRequestId}.`,
    errorDetail: {
      transaction_id: replay.transaction_id,
      replay_client_request_id: replay.client_request_id ?? null,
      reason,
    },
  });
  if (attempt.periodId === null)
    return unconfirmed("the refund does not name its period id, so the period could not be checked");
  let report: PeriodReport;
  try {
    report = await client.getPeriodReport(attempt.periodId, { subscriptionId: attempt.subscriptionId }, { signal });
  } catch (error) {
    const code = isServiceError(error) ? (error.code ?? `HTTP_${error.status ?? "?"}`) : "LOCAL_ERROR";
    return exhaustedOr(attempt, {
      status: "pending",
      errorCode: "REPLAY_CHECK_FAILED",
      errorMessage:
        `The service answered that this refund was already processed (transaction ${replay.transaction_id}), ` +
        `but the period could not be read to confirm it (${code}). It is kept pending with the same request id ` +
        "and checked again automatically; do not start another refund for this period.",
      errorDetail: { transaction_id: replay.transaction_id, error_code: code },
    });
  }
  const confirmation = confirmReplayedRefund(report, parametersOf(attempt), replay);
  if (!confirmation.confirmed) return unconfirmed(confirmation.reason);
  return {
    status: "succeeded",
    receipt: null,
    transactionId: replay.transaction_id,
    refundedAt: serviceInstant(confirmation.refundedAt),
    idempotentReplay: true,
    confirmedBy: confirmation.matchedBy,
  };
}

export async function callService(db: Db, claimed: RefundAttempt, options: DriveOptions): Promise<RefundOutcome> {
  let attempt = claimed;
  const source = options.source ?? "desk";
  // The person whose request made this call; the requester stays in the detail. The reconciler is the system.
  const driver = source === "desk" ? (options.driver ?? null) : null;
  const audit = (action: string, outcome: string, detail: Record<string, unknown>) => ({
    actor: driver,
    via: source === "desk" ? ("web" as const) : ("job" as const),
    action,
    gameId: attempt.gameId,
    target: targetOf(attempt),
    idempotencyKey: attempt.clientRequestId,
    outcome,
    detail: { attempt_id: attempt.id, call: attempt.calls, source, requested_by: attempt.actorEmail, ...detail },
  });
  // Renewed while this turn runs; if it cannot be, the call is stopped before another request may take the attempt.
  const lease = holdLease(db, attempt.id, claimed.claimToken ?? "", options.clock ?? SYSTEM_CLOCK);
  const signal = lease.signal;

  let finish: (AttemptFinish & { confirmedBy?: string }) | null = null;
  // Set when the attempt ends this turn without anything sent (the period changed, or could not be read).
  let notSent = false;
  let httpAttempts = 0;
  // Every HTTP exchange of the refund call, to tell whether any of them left the outcome unknown.
  const exchanges: RequestLogEntry[] = [];
  let sent = false;
  const onRequest = options.client?.log;
  try {
    const client = await serviceClientForGame(db, attempt.gameId, {
      ...INTERACTIVE_CLIENT,
      ...options.client,
      log: (entry) => {
        if (sent && entry.route === "refund") exchanges.push(entry);
        onRequest?.(entry);
        log.debug("service request", {
          game: attempt.gameId,
          method: entry.method,
          path: entry.path,
          status: entry.status,
          ms: entry.durationMs,
          errorCode: entry.errorCode,
          attempt: entry.attempt,
        });
      },
    });
    // Never sent: no check recorded and no call counted (attempts from before the check have calls or a check time).
    if (attempt.periodCheckedAt === null && attempt.calls === 0) {
      finish = await checkPeriodBeforeFirstCall(db, client, attempt, signal, options.clock ?? SYSTEM_CLOCK);
      notSent = finish !== null;
      if (!finish) {
        // Stored before the call: from here on the attempt may have reached the service and is never refused unsent.
        const marked = await markAttemptPeriodChecked(db, attempt.id);
        if (!marked) return settledOutcome((await findRefundAttempt(db, attempt.gameId, attempt.id)) ?? attempt);
        attempt = marked;
      }
    }
    if (!finish) {
      await options.hooks?.beforeCall?.(attempt);
      const before = client.stats().attempts;
      let result: Awaited<ReturnType<Client["refundSubscription"]>>;
      sent = true;
      try {
        // Every call sends what the row holds: the same key and the same parameters as the first.
        result = await client.refundSubscription(
          attempt.subscriptionId,
          {
            clientRequestId: attempt.clientRequestId,
            periodSeq: attempt.periodSeq,
            amountUsd: formatUsd(attempt.amountUsd),
            reason: attempt.reason ?? undefined,
          },
          { signal },
        );
      } finally {
        httpAttempts = client.stats().attempts - before;
      }
      await options.hooks?.afterAnswer?.(attempt);
      if (result.outcome === "refunded") {
        const mismatch = receiptMismatch(attempt, result.receipt);
        finish = mismatch
          ? {
              status: "needs_attention",
              errorCode: "RECEIPT_MISMATCH",
              errorMessage:
                `The service's receipt does not match this refund (${mismatch} differs). ` +
                "It needs manual attention: do not refund again.",
              errorDetail: { receipt: result.receipt },
            }
          : {
              status: "succeeded",
              receipt: result.receipt as unknown as Record<string, unknown>,
              transactionId: result.receipt.transaction_id,
              refundedAt: serviceInstant(result.receipt.refunded_at),
              idempotentReplay: result.receipt.idempotent_replay,
            };
      } else {
        finish = await confirmReplay(client, attempt, result.replay, signal);
      }
    }
  } catch (error) {
    // Anything but the service's own answer once the request may have gone out (a stopped call, a local fault) leaves
    // the outcome unknown.
    if (sent && !isServiceError(error)) exchanges.push({ ...UNANSWERED, errorCode: "local" });
    finish = failureFinish(attempt, error, attempt.outcomeUnknown || exchanges.slice(0, -1).some(unknownExchange));
  } finally {
    lease.stop();
  }
  // Failed before the request went out (a local fault in the check, or just before the call): nothing was sent this
  // turn. The first turn's is the check's line; a later turn's stays a call's, with what earlier calls left unknown.
  if (!sent && claimed.calls === 0 && claimed.periodCheckedAt === null) notSent = true;
  const outcomeOf = finish;
  // The service said it processed this key but the period could not confirm it: something moved.
  const thisCallUnknown =
    exchanges.some(unknownExchange) ||
    (outcomeOf.status !== "succeeded" && outcomeOf.errorCode === "REPLAY_CHECK_FAILED");

  const finished = await db.transaction().execute(async (trx) => {
    const row = await finishRefundAttempt(trx, attempt.id, outcomeOf, {
      claimToken: claimed.claimToken,
      outcomeUnknown: thisCallUnknown,
    });
    if (!row) {
      // The hold was lost (another request holds the attempt) or the attempt was settled meanwhile: a call that may
      // have reached the service still leaves its line, with what it saw.
      if (sent)
        await recordAudit(
          trx,
          audit("refund.call", "hold_lost", {
            http_attempts: httpAttempts,
            ...(thisCallUnknown ? { outcome_unknown: true } : {}),
            answered: outcomeOf.status,
            ...(outcomeOf.status === "succeeded"
              ? { transaction_id: outcomeOf.transactionId }
              : { error_code: outcomeOf.errorCode }),
          }),
        );
      return null;
    }
    const detail: Record<string, unknown> = sent ? { http_attempts: httpAttempts } : { sent: false };
    if (row.outcomeUnknown && !notSent) detail.outcome_unknown = true;
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
      await recordAudit(
        trx,
        audit(
          "refund.check",
          outcomeOf.status !== "succeeded" && outcomeOf.errorCode === "PERIOD_CHANGED" ? "superseded" : outcome,
          detail,
        ),
      );
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
  // The hold was lost (another request holds the attempt now) or the attempt was settled meanwhile: its row says how
  // it stands; a receipt would have been recorded in any case.
  const settled = finished ?? (await findRefundAttempt(db, attempt.gameId, attempt.id)) ?? attempt;
  const outcome = settledOutcome(settled);
  if (settled.status === "succeeded" && settled.idempotentReplay) {
    outcome.message +=
      " The service confirmed it from an earlier call with the same request id; nothing was refunded twice.";
  }
  return outcome;
}
