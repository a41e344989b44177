/**
 * Where a person lands after signing in: the page of this app they asked for before the sign-in page, when it is one
 * (a path of this origin, never another site, the sign-in page itself or a route handler); else Payouts.
 */
export const AFTER_SIGN_IN = "/payouts";

const BASE = "http://payout-desk.invalid";

export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2000) return AFTER_SIGN_IN;
  // One leading slash and no backslash or control character: "//host" and "/\host" are other sites to a browser.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
  if (!/^\/(?![/\\])[^\\\u0000-\u001f\u007f]*$/.test(value)) return AFTER_SIGN_IN;
  // Read as a browser reads it, dot segments resolved ("/.//host" is "//host", another site once redirected to).
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return AFTER_SIGN_IN;
  }
  const path = url.pathname;
  // The server routes a path's decoded form too ("/%61pi/…" reaches "/api/…"): both are checked.
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return AFTER_SIGN_IN;
  }
  if (url.origin !== BASE) return AFTER_SIGN_IN;
  for (const form of [path, decoded]) {
    if (form.startsWith("//") || form.includes("\\")) return AFTER_SIGN_IN;
    if (form === "/sign-in" || form.startsWith("/sign-in/") || form.startsWith("/api/")) return AFTER_SIGN_IN;
  }
  return path + url.search;
}

/** The request header in which the proxy passes the page asked for (path and query) to the page's own checks. */
export const ASKED_PATH_HEADER = "x-payout-desk-path";

/** The sign-in page's address for a person who asked for `asked` (no `next` for Payouts itself). */
export function signInPathFor(asked: string | null | undefined): string {
  if (!asked || asked === "/" || asked === AFTER_SIGN_IN) return "/sign-in";
  return `/sign-in?${new URLSearchParams({ next: asked })}`;
}
