import "server-only";
import { describeServiceFailure, isServiceError, type ServiceError } from "@/lib/service/errors";
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

/** What a support or finance person is told when a read fails (see describeServiceFailure). */
export function describeReadFailure(what: string, error: ServiceError): string {
  return `Could not load the ${what}: ${describeServiceFailure(error)}`;
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
