/**
 * A text's length in characters, as PostgreSQL's char_length and the service count them: code points, so that an
 * emoji (two UTF-16 units, two of `.length`) is one.
 */
export function characterCount(value: string): number {
  return [...value].length;
}

/**
 * A text as PostgreSQL's text and jsonb can hold it: every NUL (JSON's \u0000, which neither takes) replaced by U+FFFD.
 * For text the desk only shows and keeps; an id is never changed.
 */
export function withoutNul<T extends string | null>(text: T): T {
  return (text?.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text) as T;
}
