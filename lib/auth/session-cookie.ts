import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * The session cookie better-auth sets, and the secret it signs it with, from PAYOUT_DESK_KEY (base64): the same on
 * every instance holding the key. Read by the proxy too, before any page or action runs, so this module imports
 * nothing of the repo (no "server-only" module may be reached from there).
 */
export const SESSION_COOKIE = "payout-desk.session_token";

export function authCookieSecret(keyBase64: string): string {
  const key = hkdfSync("sha256", Buffer.from(keyBase64, "base64"), Buffer.alloc(0), "payout-desk:auth-cookies", 32);
  return Buffer.from(key).toString("base64");
}

/**
 * Whether a session cookie's value (`token.signature`, URL-encoded; the signature a base64 HMAC-SHA256 of the token)
 * was signed with one of the secrets. Says only that this deployment issued it once, not that the session still
 * stands: pages, actions and routes check that themselves.
 */
export function isSignedSessionCookie(value: string, secrets: readonly string[]): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return false;
  }
  const dot = decoded.lastIndexOf(".");
  if (dot <= 0) return false;
  const token = decoded.slice(0, dot);
  const given = Buffer.from(decoded.slice(dot + 1), "base64");
  return secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(token).digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
