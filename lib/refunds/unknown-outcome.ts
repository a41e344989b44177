import type { RequestLogEntry } from "@/lib/service/client";

/**
 * Whether one HTTP exchange of a refund call leaves the money's fate unknown. Only an answer that says the service
 * refused the request before anything moved is known: a 4xx refusal (the request was not processed), a 429, and the
 * 5xx the spec says send nothing ("service_unavailable", "FLOW_PAUSED": a pause; "PROCESSOR_UNAVAILABLE": "nothing
 * sent, no charge"; "PROCESSOR_NOT_CONFIGURED"). No answer, a timeout, a body that could not be read, 408, and every
 * other 5xx may follow a refund the service made: PROCESSOR_ERROR may even leave a card refund issued ("a card refund
 * issued by an earlier failed attempt" is adopted by a later call).
 */
export type RefundExchange = {
  /** HTTP status; null when no answer arrived (timeout, network error). */
  status: number | null;
  /** Machine codes of the answer (error_code, error_code_public), when it had any. */
  codes: readonly (string | null | undefined)[];
  /** A 2xx whose body could not be read as a receipt or the reduced replay. */
  unreadable?: boolean;
};

const NOTHING_SENT_5XX: ReadonlySet<string> = new Set([
  "service_unavailable",
  "FLOW_PAUSED",
  "PROCESSOR_UNAVAILABLE",
  "PROCESSOR_NOT_CONFIGURED",
]);

export function isOutcomeUnknown(exchange: RefundExchange): boolean {
  const status = exchange.status;
  if (status === null) return true;
  if (status >= 200 && status < 300) return exchange.unreadable === true;
  if (status === 408) return true;
  if (status >= 400 && status < 500) return false;
  if (status >= 500) return !exchange.codes.some((code) => typeof code === "string" && NOTHING_SENT_5XX.has(code));
  return true;
}

/** A refund call that got no answer (stopped, or a local fault once the request may have gone out). */
export const UNANSWERED: RequestLogEntry = {
  method: "POST",
  path: "",
  route: "refund",
  status: null,
  durationMs: 0,
  errorCode: null,
  attempt: 0,
  pacedMs: 0,
  willRetry: false,
};

/** Whether this exchange of a refund call, as the request log has it, left the outcome unknown. */
export function unknownExchange(entry: RequestLogEntry): boolean {
  const unreadable = entry.status !== null && entry.status >= 200 && entry.status < 300 && entry.errorCode !== null;
  const codes = [entry.errorCode, entry.errorCodePublic ?? null];
  return isOutcomeUnknown({ status: entry.status, codes, unreadable });
}
