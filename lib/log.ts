import "server-only";
import { env } from "./env";

/**
 * One-line JSON logs. Values under keys that look secret are replaced before anything is written, and callers
 * never pass request bodies or secrets in the first place.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
/** Secrets, and payout details (bank, PayPal, Wise: they reach only the payment file): by key, however deep. */
const SECRET_KEY =
  /secret|password|token|authorization|cookie|key$|iban|^bic$|holder|account_?number|routing|sealed|paypal|wise/i;

/** A user and password written into an address (a database's, a mail server's): in any text logged, an error's too. */
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)\S*@/gi;

function withoutCredentials(text: string): string {
  return text.replace(CREDENTIALS, "$1[redacted]@");
}

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return withoutCredentials(value);
  if (value === null || typeof value !== "object") return value;
  // Deeper than this is not logged at all, rather than logged unchecked.
  if (depth > 4) return "[truncated]";
  if (value instanceof Error) return { name: value.name, message: withoutCredentials(value.message) };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    out[key] = SECRET_KEY.test(key) ? "[redacted]" : redact(inner, depth + 1);
  return out;
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  const threshold = ORDER[env().LOG_LEVEL];
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...(redact(fields) as object) });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};
