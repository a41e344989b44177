type ClassValue = string | false | null | undefined | 0;

/** Joins class names, skipping falsy parts: `cn("a", busy && "b")`. Tiny on purpose, no dependency. */
export function cn(...parts: ClassValue[]): string {
  let out = "";
  for (const part of parts) {
    if (!part) continue;
    out = out ? `${out} ${part}` : part;
  }
  return out;
}
