import { withoutNul } from "@/core/characters";
import { parseWebhookEvent } from "@/lib/service/schemas";

/**
 * An event's parsed JSON as the desk reads it: with every NUL (JSON's \u0000), in its texts and its keys, replaced by
 * U+FFFD. PostgreSQL's text and jsonb take no NUL, so nothing read from an event could be stored with one; the body
 * itself is kept as the service sent it.
 */
export function readEventJson(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return withoutNul(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= EVENT_JSON_DEPTH) throw new EventTooDeepError();
  if (Array.isArray(value)) return value.map((v) => readEventJson(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [readEventJson(key) as string, readEventJson(v, depth + 1)]),
  );
}

/**
 * Arrays and objects one event may nest, at most. JSON.parse reads any depth; a body nested thousands deep (well within
 * its size limit) would exhaust the stack of whatever walks it next, and fail every delivery of it with a 500.
 */
export const EVENT_JSON_DEPTH = 64;

/** A body nested deeper than EVENT_JSON_DEPTH: refused on receipt as malformed. */
export class EventTooDeepError extends Error {
  constructor() {
    super(`the body nests arrays and objects more than ${EVENT_JSON_DEPTH} deep`);
    this.name = "EventTooDeepError";
  }
}

/** A stored body read again; one that is not JSON or not an event is reported as unprocessable by the caller. */
export function parseStoredEvent(body: string): ReturnType<typeof parseWebhookEvent> {
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    // Stored bodies were parsed once on receipt; an unreadable one fails the parse below.
  }
  try {
    json = readEventJson(json);
  } catch {
    json = null;
  }
  return parseWebhookEvent(json);
}
