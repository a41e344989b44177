import { parseWebhookEvent } from "@/lib/service/schemas";

/**
 * An event's parsed JSON as the desk reads it: with every NUL (JSON's \u0000), in its texts and its keys, replaced by
 * U+FFFD. PostgreSQL's text and jsonb take no NUL, so nothing read from an event could be stored with one; the body
 * itself is kept as the service sent it.
 */
export function readEventJson(value: unknown): unknown {
  if (typeof value === "string") return value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;
  if (Array.isArray(value)) return value.map(readEventJson);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [readEventJson(key) as string, readEventJson(v)]),
    );
  return value;
}

/** A stored body read again; one that is not JSON or not an event is reported as unprocessable by the caller. */
export function parseStoredEvent(body: string): ReturnType<typeof parseWebhookEvent> {
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    // Stored bodies were parsed once on receipt; an unreadable one fails the parse below.
  }
  return parseWebhookEvent(readEventJson(json));
}
