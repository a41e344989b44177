/**
 * A text's length in characters, as PostgreSQL's char_length and the service count them: code points, so that an
 * emoji (two UTF-16 units, two of `.length`) is one.
 */
export function characterCount(value: string): number {
  return [...value].length;
}
