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
