/**
 * Time helpers of the emulator. Instants are epoch milliseconds (integers, never amounts); the API shows them as
 * ISO 8601 UTC strings without milliseconds unless an instant carries some.
 */

export type Millis = number;

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export function formatInstant(at: Millis): string {
  const text = new Date(at).toISOString();
  return text.endsWith(".000Z") ? `${text.slice(0, -5)}Z` : text;
}

export function formatNullable(at: Millis | null | undefined): string | null {
  return at === null || at === undefined ? null : formatInstant(at);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a reporting window bound.
 * Spec: "ISO 8601 date (read as 00:00:00Z) or datetime; naive datetimes are stamped UTC; an explicit offset is
 * honoured." Returns null for anything else, including calendar dates that do not exist (2026-02-30).
 */
export function parseWindowBound(text: string): Millis | null {
  const trimmed = text.trim();
  const date = DATE_ONLY.exec(trimmed);
  if (date) return utcInstant(Number(date[1]), Number(date[2]), Number(date[3]), 0, 0, 0, 0);
  const dt = DATE_TIME.exec(trimmed);
  if (!dt) return null;
  const fraction = dt[7] ? Math.floor(Number(`0${dt[7]}`) * 1000) : 0;
  const base = utcInstant(
    Number(dt[1]),
    Number(dt[2]),
    Number(dt[3]),
    Number(dt[4]),
    Number(dt[5]),
    dt[6] ? Number(dt[6]) : 0,
    fraction,
  );
  if (base === null) return null;
  const zone = dt[8];
  if (!zone || zone === "Z" || zone === "z") return base;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return null;
  return base - sign * (hours * HOUR + minutes * MINUTE);
}

function utcInstant(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Millis | null {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo - 1) || h > 23 || mi > 59 || s > 59) return null;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/**
 * Parses a timestamp of a scenario file or admin call: a full ISO datetime (offset optional, naive = UTC) or a date.
 */
export function parseInstant(text: string): Millis | null {
  return parseWindowBound(text);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, monthIndex: number): number {
  if (monthIndex === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return MONTH_DAYS[monthIndex] ?? 31;
}

export type Interval = "day" | "week" | "month" | "year";

/**
 * Adds `count` intervals to an instant. Months keep the anchor day of the subscription where the month has it and
 * fall back to the month's last day otherwise (Jan 31 -> Feb 28 -> Mar 31).
 */
export function addInterval(at: Millis, interval: Interval, count: number, anchorDay?: number): Millis {
  if (interval === "day") return at + count * DAY;
  if (interval === "week") return at + count * 7 * DAY;
  const date = new Date(at);
  const months = interval === "year" ? count * 12 : count;
  const totalMonths = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths % 12;
  const day = Math.min(anchorDay ?? date.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(
    year,
    month,
    day,
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  );
}

/** Parses a duration for the admin clock: a number of seconds, or "90s", "15m", "12h", "3d", "2w". */
export function parseDuration(value: unknown): Millis | null {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return Math.round(value * SECOND);
  if (typeof value !== "string") return null;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2] ?? "s";
  const factor = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY }[unit] ?? SECOND;
  return Math.round(amount * factor);
}

/** Lower bound: the first index whose key is >= target, in an array sorted by key. */
export function lowerBound<T>(items: readonly T[], target: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid] as T) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
