import {
  formatInstant,
  monthKeyOf,
  monthWindow,
  MS_PER_DAY,
  parseInstant,
  type TimeWindow,
  instantText,
  windowDaysText,
  windowProblem,
} from "@/lib/time";

/**
 * A window in a URL: "2026-03" for a calendar month (UTC), else "<start>~<end>" with both bounds in ISO 8601 UTC
 * ("2026-03-01T00:00:00Z~2026-03-15T00:00:00Z", end exclusive).
 */
export function windowKey(window: TimeWindow): string {
  const month = monthKeyOf(window.startMs);
  const asMonth = monthWindow(month);
  if (asMonth.startMs === window.startMs && asMonth.endMs === window.endMs) return month;
  return `${formatInstant(window.startMs)}~${formatInstant(window.endMs)}`;
}

export function parseWindowKey(key: string): TimeWindow | null {
  let text: string;
  try {
    text = decodeURIComponent(key).trim();
  } catch {
    // "100%" (a URL's "%25" decoded once already) is no window: not found, never an error.
    return null;
  }
  if (/^\d{4}-\d{2}$/.test(text)) {
    try {
      return monthWindow(text);
    } catch {
      return null;
    }
  }
  const [start, end, ...rest] = text.split("~");
  if (!start || !end || rest.length > 0) return null;
  const startMs = parseInstant(start);
  const endMs = parseInstant(end);
  if (startMs === null || endMs === null) return null;
  const window = { startMs, endMs };
  return windowProblem(window) === null ? window : null;
}

export function windowHref(window: TimeWindow): string {
  return `/payouts/${encodeURIComponent(windowKey(window))}`;
}

/** Made once: building a date format costs about fifty times what using one does, and pages label many windows. */
const MONTH_FORMAT = new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone: "UTC" });

/**
 * A window as every page and message names it: "March 2026" for a calendar month, "2026-03-05 to 2026-03-19" for whole
 * UTC days (the end exclusive, so the last day named is the one before it), else "2026-03-01 12:00 → 2026-03-15 00:00
 * UTC".
 */
export function windowLabel(window: TimeWindow): string {
  const key = windowKey(window);
  if (!key.includes("~")) return MONTH_FORMAT.format(new Date(window.startMs));
  if (window.startMs % MS_PER_DAY === 0 && window.endMs % MS_PER_DAY === 0) {
    return windowDaysText(formatInstant(window.startMs), formatInstant(window.endMs));
  }
  return `${instantText(window.startMs)} → ${instantText(window.endMs)} UTC`;
}
