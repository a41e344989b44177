import { z } from "zod";

/**
 * Time windows for reporting, always half-open `[start, end)` in UTC.
 *
 * A window is held as two integer epoch milliseconds: integers compare, subtract and split exactly, and every value
 * formats to one ISO 8601 string that parses back to the same integer (`formatInstant` / `parseInstant`), so a window
 * sent to the service as `start`/`end` strings and read back from a stored snapshot is the same window.
 */
export type TimeWindow = { readonly startMs: number; readonly endMs: number };

export const MS_PER_SECOND = 1_000;
export const MS_PER_DAY = 86_400_000;
/** "end: Exclusive; after start; at most 400 days after start." */
export const MAX_WINDOW_DAYS = 400;
export const MAX_WINDOW_MS = MAX_WINDOW_DAYS * MS_PER_DAY;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const MONTH_KEY = /^(\d{4})-(\d{2})$/;
/**
 * UTC to the second or the millisecond, from year 1000 and with a day every month has: the form nearly every instant
 * the service sends takes, and one the ECMAScript date format defines exactly, so Date.parse reads it without the
 * calendar checks below (tens of thousands of instants a page of a large month).
 */
const PLAIN_UTC = /^[1-9]\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{3})?Z$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/**
 * Parses one window bound as the service reads it: "ISO 8601 date (read as 00:00:00Z) or datetime; naive datetimes
 * are stamped UTC; an explicit offset is honoured." Returns epoch milliseconds, or null when the text is not such a
 * value (calendar-checked: no 2026-02-30, no 24:00, no leap second). Fractions finer than a millisecond are accepted
 * only when they are zeros, so the result is exact: a bound someone typed means exactly what it says.
 */
export function parseInstant(text: string): number | null {
  return parseIsoInstant(text, "refuse");
}

/**
 * A timestamp the service sent (a renewal's paid_at, a refund's refunded_at, a report's generated_at), in epoch
 * milliseconds: read as parseInstant reads a bound, except that digits finer than a millisecond are dropped instead
 * of refused (`.123456Z` is `.123Z`). Every window is whole milliseconds, so an instant and its millisecond fall in
 * the same windows; the service's own text stays in the stored pages.
 */
export function parseServiceInstant(text: string): number | null {
  return parseIsoInstant(text, "floor");
}

function parseIsoInstant(text: string, finerThanMs: "refuse" | "floor"): number | null {
  if (PLAIN_UTC.test(text)) return Date.parse(text);
  const value = text.trim();
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const [, y, m, d] = dateOnly;
    return checkedUtc(Number(y), Number(m), Number(d), 0, 0, 0, 0);
  }
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const fraction = frac ?? "";
  if (finerThanMs === "refuse" && fraction.length > 3 && !/^0+$/.test(fraction.slice(3))) return null;
  const ms = fraction === "" ? 0 : Number(fraction.slice(0, 3).padEnd(3, "0"));
  const local = checkedUtc(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s ?? "0"), ms);
  if (local === null) return null;
  const offset = parseOffsetMinutes(zone);
  if (offset === null) return null;
  return local - offset * 60_000;
}

function checkedUtc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | null {
  // Date.UTC reads years 0-99 as 1900-1999; no reporting window starts before year 1000 anyway.
  if (year < 1000) return null;
  if (month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  return utcMs(year, month, day, hour, minute, second, ms);
}

function parseOffsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone === "Z" || zone === "z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

/**
 * ISO 8601 in UTC with `Z`: `2026-03-01T00:00:00Z`, with `.sss` only when the instant is not on a whole second.
 * `parseInstant(formatInstant(ms)) === ms` for every integer ms in the Date range.
 */
export function formatInstant(ms: number | Date): string {
  const date = typeof ms === "number" ? new Date(ms) : ms;
  if (Number.isNaN(date.getTime())) throw new RangeError("cannot format an invalid date");
  const iso = date.toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** A window bound as typed by a user or sent by the service; parses to epoch milliseconds. */
export const instantInputSchema = z.string().transform((text, ctx) => {
  const ms = parseInstant(text);
  if (ms === null) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T12:00:00Z)",
    });
    return z.NEVER;
  }
  return ms;
});

/** Problems with a window, in the service's words (its error codes), or null when the service would accept it. */
export function windowProblem(window: TimeWindow): "WINDOW_INVALID" | "WINDOW_TOO_LONG" | null {
  if (!Number.isInteger(window.startMs) || !Number.isInteger(window.endMs)) return "WINDOW_INVALID";
  if (window.endMs <= window.startMs) return "WINDOW_INVALID";
  if (window.endMs - window.startMs > MAX_WINDOW_MS) return "WINDOW_TOO_LONG";
  return null;
}

export function isWindowWithinMaxLength(window: TimeWindow): boolean {
  return window.endMs - window.startMs <= MAX_WINDOW_MS;
}

/** `{ start, end }` as typed (CLI, form) -> a window the service accepts: end after start, at most 400 days. */
export const windowInputSchema = z
  .object({ start: instantInputSchema, end: instantInputSchema })
  .transform((value, ctx): TimeWindow => {
    const window = { startMs: value.start, endMs: value.end };
    const problem = windowProblem(window);
    if (problem === "WINDOW_INVALID") {
      ctx.addIssue({ code: "custom", path: ["end"], message: "end must be after start" });
      return z.NEVER;
    }
    if (problem === "WINDOW_TOO_LONG") {
      ctx.addIssue({ code: "custom", path: ["end"], message: `a window may span at most ${MAX_WINDOW_DAYS} days` });
      return z.NEVER;
    }
    return window;
  });

export function makeWindow(start: number | Date, end: number | Date): TimeWindow {
  const startMs = typeof start === "number" ? start : start.getTime();
  const endMs = typeof end === "number" ? end : end.getTime();
  if (!Number.isInteger(startMs) || !Number.isInteger(endMs))
    throw new RangeError("window bounds must be valid instants");
  if (endMs <= startMs) throw new RangeError("window end must be after its start");
  return { startMs, endMs };
}

/** Parses `{start, end}` strings into a window; throws with the zod message on bad input. */
export function parseWindow(start: string, end: string): TimeWindow {
  return windowInputSchema.parse({ start, end });
}

/** The window as the service's query parameters (and as stored): UTC ISO strings that round-trip exactly. */
export function windowToQuery(window: TimeWindow): { start: string; end: string } {
  return { start: formatInstant(window.startMs), end: formatInstant(window.endMs) };
}

export function formatWindow(window: TimeWindow): string {
  return `[${formatInstant(window.startMs)}, ${formatInstant(window.endMs)})`;
}

/**
 * "a renewal belongs to the window holding its paid_at; a reversal to the window holding its refunded_at"; a text
 * instant is one the service sent (parseServiceInstant).
 */
export function windowContains(window: TimeWindow, instant: number | Date | string): boolean {
  const ms =
    typeof instant === "number"
      ? instant
      : typeof instant === "string"
        ? parseServiceInstant(instant)
        : instant.getTime();
  if (ms === null || Number.isNaN(ms)) return false;
  return ms >= window.startMs && ms < window.endMs;
}

export function windowDurationMs(window: TimeWindow): number {
  return window.endMs - window.startMs;
}

/** A window is closed once its end has passed; the spec promises a closed window reproduces. */
export function isWindowClosed(window: TimeWindow, nowMs: number): boolean {
  return window.endMs <= nowMs;
}

export function sameWindow(a: TimeWindow, b: TimeWindow): boolean {
  return a.startMs === b.startMs && a.endMs === b.endMs;
}

/**
 * Splits a window into `parts` adjacent sub-windows that partition it exactly: the first starts at `start`, each ends
 * where the next starts, the last ends at `end`. Boundaries fall on whole seconds when both ends do (the service's
 * window parameters are ISO strings; whole seconds are the safest to send), otherwise on milliseconds. Parts differ in
 * length by at most one unit. Throws when the window has fewer units than parts.
 */
export function splitWindow(window: TimeWindow, parts: number): TimeWindow[] {
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError("parts must be a positive integer");
  if (windowProblem(window) === "WINDOW_INVALID") throw new RangeError("cannot split an empty or inverted window");
  const unit = window.startMs % MS_PER_SECOND === 0 && window.endMs % MS_PER_SECOND === 0 ? MS_PER_SECOND : 1;
  const units = (window.endMs - window.startMs) / unit;
  if (units < parts) throw new RangeError(`cannot split a window of ${units} units into ${parts} parts`);
  const bounds: number[] = [];
  for (let i = 0; i <= parts; i += 1) bounds.push(window.startMs + unit * Math.floor((i * units) / parts));
  const result: TimeWindow[] = [];
  for (let i = 0; i < parts; i += 1) result.push({ startMs: bounds[i] as number, endMs: bounds[i + 1] as number });
  return result;
}

/** True when `parts` are adjacent, in order, and cover exactly `window` (a merged snapshot's claim about itself). */
export function isPartitionOf(window: TimeWindow, parts: readonly TimeWindow[]): boolean {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!first || !last) return false;
  if (first.startMs !== window.startMs || last.endMs !== window.endMs) return false;
  return parts.every((part, i) => part.endMs > part.startMs && (i === 0 || parts[i - 1]?.endMs === part.startMs));
}

/** A calendar month "YYYY-MM" (UTC). */
export const monthKeySchema = z
  .string()
  .regex(MONTH_KEY, { message: "must be a month such as 2026-03", abort: true })
  .refine(
    (value) => {
      const month = Number(value.slice(5, 7));
      return Number(value.slice(0, 4)) >= 1000 && month >= 1 && month <= 12;
    },
    { message: "month must be 01 to 12" },
  );

/** "2026-03" -> [2026-03-01T00:00:00Z, 2026-04-01T00:00:00Z). */
export function monthWindow(monthKey: string): TimeWindow {
  const match = MONTH_KEY.exec(monthKeySchema.parse(monthKey));
  const year = Number(match?.[1]);
  const month = Number(match?.[2]);
  return { startMs: utcMs(year, month, 1), endMs: utcMs(year, month + 1, 1) };
}

/** The UTC month holding an instant, as "YYYY-MM". */
export function monthKeyOf(instant: number | Date): string {
  return formatInstant(instant).slice(0, 7);
}

/** Adds (or with a negative `count`, subtracts) calendar months: addMonths("2026-01", -1) = "2025-12". */
export function addMonths(monthKey: string, count: number): string {
  const window = monthWindow(monthKey);
  const date = new Date(window.startMs);
  date.setUTCMonth(date.getUTCMonth() + count);
  return monthKeyOf(date);
}

/** Every UTC month that overlaps the window, oldest first ("2026-01-15".."2026-03-01" -> 2026-01, 2026-02). */
export function listMonths(window: TimeWindow): string[] {
  if (window.endMs <= window.startMs) return [];
  const months: string[] = [];
  const lastMonth = monthKeyOf(window.endMs - 1);
  let month = monthKeyOf(window.startMs);
  for (;;) {
    months.push(month);
    if (month === lastMonth) return months;
    month = addMonths(month, 1);
  }
}

/**
 * A window's days as a reader counts them (UTC): "2026-03-01 to 2026-03-31" for [2026-03-01, 2026-04-01). The end is
 * exclusive, so the last day named is the one before it. A window not of whole UTC days (a month taken in Tokyo's
 * time) names its instants, saying UTC and that the end is the next window's: "2026-02-28 15:00 UTC up to
 * 2026-03-31 15:00 UTC".
 */
export function windowDaysText(startIso: string, endIso: string): string {
  const start = Date.parse(startIso);
  const end = Date.parse(endIso);
  if (isWholeDays(start, end)) return `${startIso.slice(0, 10)} to ${new Date(end - 1).toISOString().slice(0, 10)}`;
  return `${instantText(start)} UTC up to ${instantText(end)} UTC`;
}

/** `windowDaysText`, saying UTC whichever form it takes: "2026-03-01 to 2026-03-31 (UTC)". */
export function windowUtcText(startIso: string, endIso: string): string {
  const text = windowDaysText(startIso, endIso);
  return isWholeDays(Date.parse(startIso), Date.parse(endIso)) ? `${text} (UTC)` : text;
}

const isWholeDays = (startMs: number, endMs: number): boolean => startMs % MS_PER_DAY === 0 && endMs % MS_PER_DAY === 0;

/** An instant as a reader reads it, in UTC without saying so: "2026-03-01 12:00" (its seconds when it has some). */
export function instantText(ms: number): string {
  return formatInstant(ms).replace("T", " ").replace(/:00Z$/, "").replace(/Z$/, "");
}
