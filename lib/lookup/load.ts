import "server-only";
import { isServiceError, type ServiceError } from "@/lib/service/errors";
import { log } from "@/lib/log";

/** A service read for a page: the value, or what to tell the reader instead of an error page. */
export type Loaded<T> = { ok: true; value: T } | { ok: false; notFound: boolean; message: string };

export async function loadFromService<T>(what: string, read: () => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (!isServiceError(error)) throw error;
    if (error.status === 404)
      return { ok: false, notFound: true, message: `The service has no ${what} for this game.` };
    log.warn("service read failed", { what, error: error.message });
    return { ok: false, notFound: false, message: describeReadFailure(what, error) };
  }
}

/**
 * What a support or finance person is told when a read fails: what happened and what to do, in words, then the
 * status and codes and the service's error id in brackets, for a report to the service. Never the request's path.
 */
export function describeReadFailure(what: string, error: ServiceError): string {
  const codes = [error.code, error.codePublic].filter((c, i, all): c is string => Boolean(c) && all.indexOf(c) === i);
  const detail = [
    error.status === null ? null : `HTTP ${error.status}`,
    codes.length > 0 ? codes.join(" / ") : null,
    error.errorId ? `service error id ${error.errorId}` : null,
  ].filter(Boolean);
  const reference = detail.length > 0 ? ` (${detail.join(", ")})` : "";
  return `Could not load the ${what}: ${reasonOf(error, codes)}${reference}`;
}

function reasonOf(error: ServiceError, codes: readonly string[]): string {
  const status = error.status ?? 0;
  if (error.kind === "network")
    return (
      "the service could not be reached. Try again in a minute; if it persists, an admin checks the game's " +
      "base URL."
    );
  if (error.kind === "timeout") return "the service did not answer in time. Try again in a minute.";
  if (error.kind === "invalid_response")
    return "the service answered in a form Payout Desk could not read. Try again; if it persists, tell an admin.";
  if (status === 401 || codes.includes("INVALID_GAME_SECRET"))
    return "the service rejected this game's secret. An admin must update it under Settings → Games.";
  if (status === 403) return "the service refused this game access (it may be suspended). Tell an admin.";
  if (status === 429) return "the service is rate limiting this game. Try again in a minute.";
  if (status === 503) return "the service is unavailable or paused for maintenance. Try again later.";
  if (status >= 500) return "the service failed to answer. Try again in a minute.";
  return "the service refused the request.";
}

/** Route params arrive percent-encoded in some set-ups and decoded in others. */
export function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
