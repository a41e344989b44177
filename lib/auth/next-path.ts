/**
 * Where a person lands after signing in: the page of this app they asked for before the sign-in page, when it is one
 * (a path of this origin, never another site, the sign-in page itself or a route handler); else Payouts.
 */
export const AFTER_SIGN_IN = "/payouts";

export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2000) return AFTER_SIGN_IN;
  // One leading slash and no backslash or control character: "//host" and "/\host" are other sites to a browser.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
  if (!/^\/(?![/\\])[^\\\u0000-\u001f\u007f]*$/.test(value)) return AFTER_SIGN_IN;
  if (value === "/sign-in" || value.startsWith("/sign-in?") || value.startsWith("/api/")) return AFTER_SIGN_IN;
  return value;
}
