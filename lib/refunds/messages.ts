import { formatAmountText } from "@/lib/format";
import { neverConnected, UNREACHABLE_ADVICE } from "@/lib/service/errors";

/**
 * What a support agent reads when the service refuses or fails a refund or a subscription change. Every code of the
 * spec's refund error table has its own sentence; each says what happened to the money and what to do next.
 */

/** What a failed call says (a ServiceError is one). */
export type ServiceFailure = {
  kind: "http" | "network" | "timeout" | "invalid_response";
  status: number | null;
  code: string | null;
  codePublic?: string | null;
  errorId?: string | null;
  body?: Record<string, unknown> | null;
};

/** How an attempt stands after a failure: try again with the same key, stop, or hand to a person. */
export type RefundFailureClass = "retry_same_key" | "refused" | "manual_attention";

function usd(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    return formatAmountText(value, { currency: "USD" });
  } catch {
    return null;
  }
}

const NOTHING_MOVED = "Nothing was refunded.";
const KEPT_PENDING =
  "The refund is kept pending with the same request id and is retried automatically; do not start another refund for " +
  "this period.";

/** The spec's refund errors, by code. Functions read the detail fields the spec says the body carries. */
export const REFUND_ERROR_MESSAGES: Record<string, (body: Record<string, unknown>) => string> = {
  CLIENT_REQUEST_ID_REQUIRED: () =>
    `The service did not receive the refund's request id. ${NOTHING_MOVED} Report this as a Payout Desk bug.`,
  CLIENT_REQUEST_ID_INVALID: () =>
    `The service rejected the refund's request id as malformed. ${NOTHING_MOVED} Report this as a Payout Desk bug.`,
  CLIENT_REQUEST_ID_TOO_LONG: () =>
    `The refund's request id is longer than the service accepts. ${NOTHING_MOVED} Report this as a Payout Desk bug.`,
  CLIENT_REQUEST_ID_RESERVED: () =>
    `The refund's request id uses a prefix the service reserves. ${NOTHING_MOVED} Report this as a Payout Desk bug.`,
  INVALID_PERIOD_SEQ: () =>
    `The billing period number is not valid. ${NOTHING_MOVED} Pick the period again from the subscription page.`,
  PERIOD_NOT_FOUND: () => `The service has no such billing period on this subscription. ${NOTHING_MOVED}`,
  INVALID_AMOUNT: () => `The amount must be more than 0 with at most two decimals. ${NOTHING_MOVED}`,
  AMOUNT_EXCEEDS_REMAINING: (body) => {
    const remaining = usd(body.remaining_refundable_usd);
    const already = usd(body.already_refunded_usd);
    return (
      `The amount is more than what is left to refund on this period` +
      (remaining ? `: ${remaining} remains refundable` : "") +
      (already ? ` (${already} already refunded)` : "") +
      `. ${NOTHING_MOVED} Enter at most the remaining amount.`
    );
  },
  INVALID_BODY: () =>
    `The service could not read the refund request. ${NOTHING_MOVED} Report this as a Payout Desk bug.`,
  SUBSCRIPTION_NOT_FOUND: () =>
    `The service does not know this subscription for the selected game. ${NOTHING_MOVED} Check the game switcher.`,
  NO_PAID_PERIOD: () => `Nothing has been collected on this subscription yet, so there is nothing to refund.`,
  PERIOD_NOT_REFUNDABLE: (body) =>
    `This period was never ` +
    `collected${typeof body.period_status === "string" ? ` (its status is ${body.period_status})` : ""}, so ` +
    `there is nothing to refund.`,
  ALREADY_REFUNDED: (body) => {
    const refunded = usd(body.refunded_amount_usd);
    const amount = usd(body.amount_usd);
    return (
      `This period is already fully refunded${refunded && amount ? ` (${refunded} of ${amount})` : ""}. ` +
      `${NOTHING_MOVED}`
    );
  },
  PCSTORE_REFUND_NOT_SUPPORTED: () =>
    `This period was charged through the pcstore, which the service cannot refund. ${NOTHING_MOVED} The player must ` +
    `ask the pcstore for a refund.`,
  MINT_ORDER_MISSING: () =>
    `The service cannot find the card charge record of this period, so it cannot refund it. ${NOTHING_MOVED} ` +
    `Escalate to the service with the error id.`,
  NO_PAYMENT_REFERENCE: () =>
    `The card charge of this period has no payment reference at the service, so it cannot be refunded. ` +
    `${NOTHING_MOVED} Escalate to the service with the error id.`,
  REFUND_LOOKUP_FAILED: () =>
    `The service could not confirm with the card processor whether this refund went through. It needs manual ` +
    `attention: do not refund again; escalate to the service with the error id.`,
  REFUND_MISMATCH: () =>
    `The service found that the card processor's refund does not match its own records. It needs manual attention: ` +
    `do not refund again; escalate to the service with the error id.`,
  PROCESSOR_ERROR: () => `The card processor refused or failed the refund for now. ${KEPT_PENDING}`,
  service_unavailable: () => `The service is temporarily unavailable. ${KEPT_PENDING}`,
  FLOW_PAUSED: () => `Refunds are paused at the service for maintenance. ${KEPT_PENDING}`,
  INTERNAL_ERROR: () => `The service had an internal error. ${KEPT_PENDING}`,
  RATE_LIMITED: () => `Too many refund calls on this subscription in the last minute. ${KEPT_PENDING}`,
  // Not the service's: the client refused to send while an earlier 429's wait stands (lib/service/transport.ts).
  RATE_LIMIT_PAUSE: () =>
    "Not sent yet: the service asked Payout Desk to wait before calling again, and the wait is not over. " +
    KEPT_PENDING,
  PROCESSOR_NOT_CONFIGURED: () =>
    `Payment processing is not configured at the service for refunds. ${NOTHING_MOVED} Escalate to the service.`,
  PROCESSOR_UNAVAILABLE: () =>
    `The card processor rejected the service's credentials; nothing was sent. ${NOTHING_MOVED} Escalate to the ` +
    `service.`,
  INVALID_GAME_SECRET: () =>
    `The service rejected this game's secret. ${NOTHING_MOVED} An admin must update it under Settings → Games.`,
};

/** Codes after which the same client_request_id must be sent again (the spec says so, or a 5xx/429 says it is safe). */
const RETRY_SAME_KEY = new Set([
  "PROCESSOR_ERROR",
  "service_unavailable",
  "FLOW_PAUSED",
  "INTERNAL_ERROR",
  "RATE_LIMITED",
  "RATE_LIMIT_PAUSE",
]);
/** "502 REFUND_LOOKUP_FAILED, REFUND_MISMATCH: Needs manual attention." */
const MANUAL = new Set(["REFUND_LOOKUP_FAILED", "REFUND_MISMATCH"]);
/** 5xx codes that say nothing was sent and retrying changes nothing. */
const TERMINAL_5XX = new Set(["PROCESSOR_NOT_CONFIGURED", "PROCESSOR_UNAVAILABLE"]);

/**
 * Where an attempt stands after the client gave up on a call. Unknown outcomes (no answer, a 5xx, a body we could not
 * read) are never "refused": the refund may have happened, so the attempt stays pending and is retried with its key.
 */
export function classifyRefundFailure(failure: ServiceFailure): RefundFailureClass {
  // The provider-neutral code first, as the service asks ("matching on error_code_public is preferred").
  const codes = [failure.codePublic, failure.code].filter((c): c is string => Boolean(c));
  if (codes.some((c) => MANUAL.has(c))) return "manual_attention";
  if (failure.kind === "network" || failure.kind === "timeout") return "retry_same_key";
  // A 2xx we could not parse: the refund most likely happened; a person compares with the service.
  if (failure.kind === "invalid_response")
    return failure.status !== null && failure.status < 300 ? "manual_attention" : "retry_same_key";
  for (const code of codes) {
    if (RETRY_SAME_KEY.has(code)) return "retry_same_key";
    if (TERMINAL_5XX.has(code)) return "refused";
  }
  const status = failure.status ?? 0;
  if (status === 429 || status === 408 || status >= 500) return "retry_same_key";
  return "refused";
}

/** The sentence for a failed refund call. */
export function describeRefundFailure(failure: ServiceFailure): string {
  const codes = [failure.codePublic, failure.code].filter((c): c is string => Boolean(c));
  const ref = failure.errorId ? ` (service error id ${failure.errorId})` : "";
  for (const code of codes) {
    const message = REFUND_ERROR_MESSAGES[code];
    if (message) return `${message(failure.body ?? {})}${ref}`;
  }
  if (failure.kind === "network") return `The service could not be reached. ${KEPT_PENDING}`;
  if (failure.kind === "timeout")
    return `The service did not answer in time; the refund may or may not have been made. ${KEPT_PENDING}`;
  if (failure.kind === "invalid_response") {
    return failure.status !== null && failure.status < 300
      ? "The service answered in a form Payout Desk could not read; the refund has probably been made. It needs " +
          "manual attention: do not refund again."
      : `The service's answer was cut short. ${KEPT_PENDING}`;
  }
  const kind = classifyRefundFailure(failure);
  const label = `HTTP ${failure.status ?? "?"}${codes.length ? ` ${codes.join(" / ")}` : ""}`;
  if (kind === "retry_same_key") return `The service answered ${label}. ${KEPT_PENDING}${ref}`;
  return `The service refused the refund (${label}). ${NOTHING_MOVED}${ref}`;
}

/** Subscription change errors (cancel, price, payment method), from the spec's subscription error table. */
export const CHANGE_ERROR_MESSAGES: Record<string, (body: Record<string, unknown>) => string> = {
  SUBSCRIPTION_NOT_FOUND: () => "The service does not know this subscription for the selected game.",
  INVALID_FIELD_VALUE: () => "The service rejected a value as malformed; check the amount or the card.",
  SUBSCRIPTION_TERMINAL: () => "The subscription is canceled or expired; its price and card can no longer change.",
  PCSTORE_REAUTHORIZATION_REQUIRED: (body) => {
    const current = usd(body.current_amount_usd);
    const requested = usd(body.requested_amount_usd);
    return `A price increase on a pcstore subscription needs the player to re-authorize it in the pcstore${
      current && requested ? ` (${current} to ${requested})` : ""
    }. Only decreases can be staged here.`;
  },
  PAYMENT_METHOD_NOT_FOUND: () => "That card does not belong to this player in this game.",
  PAYMENT_METHOD_EXPIRED: () => "That card has expired; pick another one.",
  PAYMENT_METHOD_INVALID: () => "The service says that card cannot be used.",
  PAYMENT_METHOD_REQUIRED: () => "Pick a card.",
  WALLET_ONLY_SUBSCRIPTION: () =>
    "This subscription is wallet-only: to attach a card, also convert it (wallet only: no).",
  WALLET_ONLY_CONFLICT: () => "A wallet-only subscription cannot have a card; choose either a card or wallet only.",
  NOT_A_CARD_SUBSCRIPTION: () => "This is a pcstore subscription; its payment method is managed by the pcstore.",
  PAYMENT_METHOD_UNAVAILABLE: () =>
    "The card was removed while the change was being made; reload and pick another card.",
  INVALID_GAME_SECRET: () => "The service rejected this game's secret; an admin must update it under Settings → Games.",
  RATE_LIMITED: () => "Too many changes on this subscription just now; wait a minute and reload before trying again.",
  RATE_LIMIT_PAUSE: () =>
    "Not sent: the service asked Payout Desk to wait before calling again, and the wait is not over. Try again in a " +
    "minute.",
};

/**
 * Cancel, price and card changes carry no idempotency key and are sent once; after no answer or a 5xx nobody knows
 * whether they were applied, so the message says to reload before acting again. The maintenance pause refuses price
 * and card changes only ("Cancel is never blocked by a maintenance pause"): a cancel answered 503 may have been made.
 */
export function describeChangeFailure(
  failure: ServiceFailure,
  kind: "cancel" | "change",
): { message: string; outcomeUnknown: boolean } {
  const codes = [failure.code, failure.codePublic].filter((c): c is string => Boolean(c));
  const ref = failure.errorId ? ` (service error id ${failure.errorId})` : "";
  for (const code of codes) {
    const message = CHANGE_ERROR_MESSAGES[code];
    if (message && (failure.status ?? 0) < 500)
      return { message: `${message(failure.body ?? {})}${ref}`, outcomeUnknown: false };
  }
  const status = failure.status ?? 0;
  // "503 (paused): Amount and payment-method changes while paused": a refusal, nothing was applied. So is a 503 whose
  // body says service_unavailable ("nothing sent": the service's breaker is open), as code or as status.
  const pauseWords = ["FLOW_PAUSED", "paused", "service_unavailable"];
  const bodyStatus = typeof failure.body?.status === "string" ? failure.body.status : "";
  if (
    kind === "change" &&
    failure.kind === "http" &&
    status === 503 &&
    (codes.some((c) => pauseWords.includes(c)) || pauseWords.includes(bodyStatus))
  ) {
    return {
      message: `The service is paused for maintenance; the change was not applied. Try again later.${ref}`,
      outcomeUnknown: false,
    };
  }
  // A connection never made sent nothing: the change was not applied, and may be tried again at once.
  if (neverConnected(failure)) {
    return {
      message: `The service could not be reached, so the change was not sent. ${UNREACHABLE_ADVICE}`,
      outcomeUnknown: false,
    };
  }
  // A 408 (a gateway gave up waiting) may come after the service took the change, as for a refund (unknown-outcome.ts).
  if (failure.kind !== "http" || status >= 500 || status === 408) {
    return {
      message:
        `The service did not confirm the change, so it may or may not have been applied. Reload the ` +
        `subscription to check before trying again.${ref}`,
      outcomeUnknown: true,
    };
  }
  const label = `HTTP ${status}${codes.length ? ` ${codes.join(" / ")}` : ""}`;
  return { message: `The service refused the change (${label}).${ref}`, outcomeUnknown: false };
}

/**
 * Why a refund confirmed from a review someone else already refunded from (the same period, amount and remaining
 * amount) makes nothing: who refunded what, when.
 */
export function refundedByOther(attempt: {
  actorEmail: string | null;
  amountUsd: string;
  transactionId: string | null;
  refundedAt: Date | null;
  updatedAt: Date;
}): string {
  const at = (attempt.refundedAt ?? attempt.updatedAt).toISOString().slice(0, 16).replace("T", " ");
  const transaction = attempt.transactionId ? ` (transaction ${attempt.transactionId})` : "";
  return (
    `${attempt.actorEmail ?? "Someone else"} refunded ${usd(attempt.amountUsd) ?? attempt.amountUsd} of this period ` +
    `at ${at} UTC${transaction}, from the same review as yours: nothing more was refunded. Review the period again ` +
    "to refund more."
  );
}
