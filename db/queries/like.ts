/** Escapes LIKE's wildcards (and its escape character) so that `text` matches only itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Where a stored name may hold a capital: none, the first letter, each word's first letter, every letter. */
const CAPITALS: ((index: number, before: string) => boolean)[] = [
  () => false,
  (index) => index === 0,
  (index, before) => index === 0 || /[\s\-'’.]/u.test(before),
  () => true,
];

/**
 * LIKE patterns that together match, over `lower(column)`, a value starting with `text` (lower case) whatever its
 * case. PostgreSQL's `lower()` folds only A–Z under the C locale (the embedded database's), so a stored "Émilie Durand"
 * is compared as "Émilie durand": the letters of `text` outside ASCII are tried as capitals where names hold them (the
 * first letter, each word's, all), four patterns at most, each served by an index on `lower(column)`. Under a locale
 * that folds them too, the patterns with a capital match nothing more.
 */
export function foldedPrefixes(text: string): string[] {
  const letters = [...text];
  const patterns = CAPITALS.map((capital) =>
    letters
      .map((letter, index) => {
        const upper = letter.toUpperCase();
        const folds = letter > "\u007f" && upper !== letter && [...upper].length === 1;
        if (!folds || !capital(index, letters[index - 1] ?? "")) return escapeLike(letter);
        // A capital in A–Z (Turkish "ı" of "I") is stored folded by lower() itself: "KIZIL" is compared as "kizil".
        return escapeLike(upper <= "\u007f" ? upper.toLowerCase() : upper);
      })
      .join(""),
  );
  return [...new Set(patterns)].map((pattern) => `${pattern}%`);
}
