import "server-only";
import { countOf } from "@/lib/format";
import { isAppError } from "@/lib/errors";
import { describeServiceFailure, serviceFailureReference, isRetryable, isServiceError } from "@/lib/service/errors";
import { SnapshotIncompleteError } from "./fetch";
import { PullBusyError } from "./pull-common";
import { formatDuration } from "./progress";

/** PostgreSQL's codes for a value it cannot store: 22021, 22P05 (characters), 22001 (length), 22007, 22008 (dates). */
const UNSTORABLE = new Set(["22021", "22P05", "22001", "22007", "22008"]);

/** The longest wait a 429 may ask for that a pull is queued again after; a longer one fails it (a broken answer). */
const LONGEST_REQUEUE_WAIT_MS = 6 * 3_600_000;

/**
 * Errors that another attempt cannot fix. A service failure reaching here is final either way: a refusal (400, 401,
 * 403, 404) answers the same every time, and anything else was already retried on its page for the whole budget;
 * but a 429 whose wait did not fit what was left of the budget was never waited out, so the next attempt starts
 * after it (up to LONGEST_REQUEUE_WAIT_MS).
 */
export function classifyPullFailure(
  error: unknown,
  retryBudgetMs: number | undefined,
): { code: string; message: string; final: boolean; retryAfterMs?: number } {
  if (error instanceof SnapshotIncompleteError) return { code: error.code, message: error.message, final: true };
  if (isAppError(error)) return { code: error.code, message: error.message, final: error.code !== "SERVICE_ERROR" };
  if (isServiceError(error)) {
    const code = error.code ?? (error.status ? `HTTP_${error.status}` : error.kind.toUpperCase());
    if (!isRetryable(error, true)) {
      return {
        code,
        message:
          error.kind === "http" ? `The service refused the report: ${describeServiceFailure(error)}` : error.message,
        final: true,
      };
    }
    if (retryBudgetMs === undefined) return { code, message: error.message, final: false };
    const tries = countOf(error.attempts, "attempt");
    const budget = formatDuration(retryBudgetMs);
    const retryAfterMs = error.status === 429 ? (error.retryAfterMs ?? 0) : 0;
    if (retryAfterMs > 0) {
      const asked = `The service asked for a wait of ${formatDuration(retryAfterMs)} before the next request`;
      if (retryAfterMs > LONGEST_REQUEUE_WAIT_MS)
        return {
          code,
          message:
            `${asked}, longer than a pull waits to try again (${LONGEST_REQUEUE_WAIT_MS / 3_600_000} hours): take ` +
            `the snapshot again later. ${describeServiceFailure(error)}`,
          final: true,
        };
      const why =
        retryAfterMs > retryBudgetMs
          ? `longer than one page's retry budget (${budget})`
          : `past what was left of one page's retry budget (${budget}, ${tries})`;
      // A worker's pull waits and tries again by itself (its card says when): no "try again" for the person.
      const message = `${asked}, ${why}: the service is rate limiting this game${serviceFailureReference(error)}.`;
      return { code, message, final: false, retryAfterMs };
    }
    return {
      code,
      message:
        `The service kept failing for ${budget}, the retry budget of one page (${tries}); ` +
        `last: ${describeServiceFailure(error)}`,
      final: true,
    };
  }
  if (error instanceof PullBusyError) return { code: error.code, message: error.message, final: false };
  const coded = error as { code?: unknown; message?: unknown };
  // PostgreSQL refused a value of the report it was to store (a NUL or a character it cannot hold, a text too long, a
  // date or time out of its range): the same report fails the same way however often it is read.
  if (typeof coded?.code === "string" && UNSTORABLE.has(coded.code))
    return {
      code: "UNSTORABLE_VALUE",
      message:
        `The service's report holds a value the desk cannot store (${error instanceof Error ? error.message : ""}): ` +
        "taking the snapshot again reads the same; tell the service's support which window it was.",
      final: true,
    };
  // The desk's own codes are kept; a system error's (ECONNREFUSED, ETIMEDOUT: a connection that failed) is not one of
  // them, and its message names hosts and ports: it is an internal error, its text left to the log.
  const system =
    error instanceof AggregateError ||
    (typeof error === "object" && error !== null && ("syscall" in error || "errno" in error));
  const code = !system && typeof coded?.code === "string" && /^[A-Z_]+$/.test(coded.code) ? coded.code : "PULL_ERROR";
  return { code, message: error instanceof Error ? error.message : String(error), final: false };
}
