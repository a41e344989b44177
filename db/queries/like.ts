/** Escapes LIKE's wildcards (and its escape character) so that `text` matches only itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
