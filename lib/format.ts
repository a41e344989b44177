/**
 * Display formatting, pure and shared by server and client components. Nothing here turns an amount into a JS
 * number: amounts are decimal strings and are formatted as text, so what the screen shows is exactly what was stored.
 */

const AMOUNT_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;

export type AmountParts = { negative: boolean; integer: string; fraction: string | null };

/** Splits a decimal string such as "-1234.50" into its sign, integer digits and fraction digits; null if not one. */
export function splitAmount(value: string): AmountParts | null {
  const match = AMOUNT_PATTERN.exec(value);
  if (!match) return null;
  const [, sign, integer = "", fraction] = match;
  // "-0.00" is zero: no sign and no red for an amount that is not below zero.
  const isZero = /^0*$/.test(integer) && /^0*$/.test(fraction ?? "");
  return { negative: sign === "-" && !isZero, integer, fraction: fraction ?? null };
}

export function isAmountText(value: string): boolean {
  return AMOUNT_PATTERN.test(value);
}

/** "1234567" -> "1,234,567". Works on the digit string, so any length is exact. */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Formats a decimal string for reading: thousands grouped, every digit kept ("1234.5" -> "1,234.5",
 * "-1234.50" -> "-1,234.50", with a currency "USD -1,234.50"). Throws on text that is not a plain decimal
 * (no exponent, no spaces, no "+"), so a malformed amount is never shown as if it were one.
 */
export function formatAmountText(value: string, options: { currency?: string } = {}): string {
  const parts = splitAmount(value);
  if (!parts) throw new Error(`not a decimal amount: ${JSON.stringify(value)}`);
  const number = `${parts.negative ? "-" : ""}${groupThousands(parts.integer)}${
    parts.fraction === null ? "" : `.${parts.fraction}`
  }`;
  return options.currency ? `${options.currency} ${number}` : number;
}

/** Counts (rows, recipients): "20000" -> "20,000". */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value)) return String(value);
  return value < 0 ? `-${groupThousands(String(-value))}` : groupThousands(String(value));
}

/** A count with its noun, in the singular for one: "1 statement", "1,200 statements" ("refund events" by default). */
export function countOf(value: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(value)} ${value === 1 ? noun : plural}`;
}

const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO 8601 date or date-time to epoch milliseconds. A value without an offset is read as UTC, never as
 * the machine's local time: the server and the browser must agree or React reports a hydration mismatch.
 */
export function parseIsoUtc(value: string): number | null {
  const text = value.trim();
  const match = ISO_PATTERN.exec(text);
  if (!match) return null;
  const hasTime = text.length > 10;
  const withZone = !hasTime ? `${text}T00:00:00Z` : match[1] ? text.replace(" ", "T") : `${text.replace(" ", "T")}Z`;
  // An offset of hours alone ("+00", as PostgreSQL writes one) is ISO 8601 too; Date.parse reads only "+00:00".
  const ms = Date.parse(withZone.replace(",", ".").replace(/([+-]\d{2})$/, "$1:00"));
  return Number.isNaN(ms) ? null : ms;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "2026-03-01T14:05:09Z" -> "2026-03-01 14:05 UTC" (or "2026-03-01" with dateOnly); null if not ISO 8601. */
export function formatUtcDateTime(
  value: string,
  options: { dateOnly?: boolean; seconds?: boolean } = {},
): string | null {
  const ms = parseIsoUtc(value);
  if (ms === null) return null;
  const d = new Date(ms);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (options.dateOnly) return date;
  const seconds = options.seconds ? `:${pad(d.getUTCSeconds())}` : "";
  return `${date} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${seconds} UTC`;
}

/**
 * Re-indents JSON text without parsing it. JSON.parse would turn 0.1000000000000000055 or a 20-digit id into a
 * float; for webhook bodies and service responses the screen must show the bytes that arrived.
 * Text that is not balanced JSON is returned unchanged.
 */
export function prettyJsonText(text: string, indent = 2): string {
  const unit = " ".repeat(indent);
  let out = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t") continue;
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === "{" || ch === "[") {
      const close = ch === "{" ? "}" : "]";
      const next = nextSignificant(text, i + 1);
      if (next === close) {
        out += ch + close;
        i = text.indexOf(close, i + 1);
        continue;
      }
      depth++;
      out += `${ch}\n${unit.repeat(depth)}`;
    } else if (ch === "}" || ch === "]") {
      depth--;
      if (depth < 0) return text;
      out += `\n${unit.repeat(depth)}${ch}`;
    } else if (ch === ",") {
      out += `,\n${unit.repeat(depth)}`;
    } else if (ch === ":") {
      out += ": ";
    } else {
      out += ch;
    }
  }
  return depth === 0 && !inString ? out : text;
}

function nextSignificant(text: string, from: number): string {
  for (let i = from; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch !== " " && ch !== "\n" && ch !== "\r" && ch !== "\t") return ch;
  }
  return "";
}

/** The first words of a message that reads after a field's label as its verb ("must be", "is", "cannot"). */
const READS_AFTER_LABEL = /^(?:must|is|are|cannot|can|has|have|takes|was|were|should|needs|does|may)\b/;

/** Whether a message is written to follow a field's label ("is before the window began"). */
export function readsAfterLabel(message: string): boolean {
  return READS_AFTER_LABEL.test(message.trim());
}

/**
 * The text of a field's error, naming the field ("Amount must be greater than 0"). Schema messages are written
 * as "must be ..." so they read after the label; a message that already names the field is kept as it is; any other
 * ("say why", "choose a file") follows the label and a colon ("Reason: say why").
 */
export function fieldErrorText(label: string, error: string): string {
  const message = error.trim();
  if (message.toLowerCase().startsWith(label.toLowerCase())) return message;
  if (readsAfterLabel(message)) return `${label} ${message}`;
  return `${label}: ${message}`;
}

/**
 * An amount in running text, the one way amounts read on every page: "USD 3,812.30" (grouped, every digit kept).
 * CSV exports keep plain decimals (lib/exports). Text that is not a decimal is shown as it is, never guessed at.
 */
export function formatUsdText(value: string): string {
  return isAmountText(value) ? formatAmountText(value, { currency: "USD" }) : `USD ${value}`;
}
