import "server-only";
import { isServiceError } from "@/lib/service/errors";
import { MS_PER_SECOND, splitWindow, type TimeWindow } from "@/lib/time";

/** How a window the service will not answer in one piece is cut into adjacent parts (lib/snapshots/fetch.ts). */

/**
 * WINDOW_TOO_LARGE with how many parts would fit ("body has settled_renewals and max_renewals; or ... reversals
 * and max_rows").
 */
export function partsForTooLarge(error: unknown): number | null {
  if (!isServiceError(error) || error.status !== 400 || error.code !== "WINDOW_TOO_LARGE") return null;
  const body = error.body ?? {};
  const ratio = (count: unknown, max: unknown) =>
    typeof count === "number" && typeof max === "number" && max > 0 ? count / max : 0;
  const needed = Math.max(ratio(body.settled_renewals, body.max_renewals), ratio(body.reversals, body.max_rows));
  // A margin, since renewals are rarely spread evenly over time.
  return Math.max(2, Math.ceil(needed * 1.2));
}

/** Parts no shorter than a second when the window is on whole seconds (the service's bounds are ISO strings). */
export function splitInto(window: TimeWindow, parts: number): TimeWindow[] | null {
  const unit = window.startMs % MS_PER_SECOND === 0 && window.endMs % MS_PER_SECOND === 0 ? MS_PER_SECOND : 1;
  const units = (window.endMs - window.startMs) / unit;
  if (units < 2) return null;
  return splitWindow(window, Math.min(parts, units));
}
