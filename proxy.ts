import { type NextRequest, NextResponse } from "next/server";
import { ASKED_PATH_HEADER, signInPathFor } from "./lib/auth/next-path";
import { authCookieSecret, isSignedSessionCookie, SESSION_COOKIE } from "./lib/auth/session-cookie";
import { contentSecurityPolicy } from "./lib/csp.mjs";

// Redirects visitors without a session cookie to the sign-in page, marks every page no-store and gives every page a
// script nonce. This is a convenience, never the guard: pages, actions and route handlers check the session and role
// themselves. Route handlers (/api/) are not seen here (`config.matcher`): Next.js reads the whole body of a request
// it hands the proxy, up to its limit (21 MB) and until the sender ends it, before the proxy may answer, and the
// webhook receiver, which anyone can reach, reads its own body and stops at 1 MB. lib/routes.ts marks their answers
// no-store.
const PUBLIC_PATHS = ["/sign-in", "/_next/", "/favicon"];

/**
 * Server actions take forms of up to 21 MB (next.config.mjs) for the two that carry a file read in the browser: a
 * provider's results on a window's page and payout profiles on /payouts/profiles, from a browser holding a session
 * cookie this deployment signed (`signedIn`; a cookie merely named so is not enough). Any other form posted to a page
 * (a server action, or a plain form post Next.js would parse looking for one), the public sign-in's among them, is
 * refused above 1 MB, or without a length (sent in chunks), before Next.js parses it. Route handlers (/api/) read
 * their own bodies with their own limits.
 */
/** A window's page (its segment begins with its year: "2026-10", "2026-10-01T12%3A00%3A00Z~…") and the profiles. */
const LARGE_FORM_PAGES = /^\/payouts\/(?:\d[^/]*|profiles)\/?$/;
export const SMALL_FORM_BYTES = 1_048_576;
const FORM_TYPES = /^(multipart\/form-data|application\/x-www-form-urlencoded)/i;

/** Why a form posted to a page is refused before it is parsed (411 or 413), or null. */
export function oversizedAction(
  method: string,
  pathname: string,
  headers: Headers,
  signedIn: boolean,
): { status: 411 | 413; message: string } | null {
  if (method !== "POST" || pathname.startsWith("/api/") || (signedIn && LARGE_FORM_PAGES.test(pathname))) return null;
  if (!headers.has("next-action") && !FORM_TYPES.test(headers.get("content-type") ?? "")) return null;
  const declared = headers.get("content-length");
  if (declared === null) return { status: 411, message: "A form must say its length." };
  const length = Number(declared);
  return !Number.isFinite(length) || length > SMALL_FORM_BYTES
    ? { status: 413, message: "This form is larger than 1 MB." }
    : null;
}

/** The secrets session cookies may be signed with: the key's, and during a rotation the previous key's. */
let cookieSecrets: { keys: string; secrets: string[] } | undefined;
function sessionSecrets(): string[] {
  const keys = [process.env.PAYOUT_DESK_KEY, process.env.PAYOUT_DESK_KEY_PREVIOUS].filter((k): k is string => !!k);
  if (cookieSecrets?.keys !== keys.join(" "))
    cookieSecrets = { keys: keys.join(" "), secrets: keys.map(authCookieSecret) };
  return cookieSecrets.secrets;
}

function hasSignedSession(request: NextRequest): boolean {
  // Any of them: a stale cookie of the same name (an old key, a sibling host's) may come first.
  return request.cookies
    .getAll()
    .some((c) => c.name.includes(SESSION_COOKIE) && isSignedSessionCookie(c.value, sessionSecrets()));
}

/**
 * For a desk people reach over https (PAYOUT_DESK_URL), the header that has browsers come back over https only, for a
 * year: a typed http:// address or a first visit is not left to a network that could read the password sent. Not for
 * the sibling hosts of the domain, which the desk does not speak for.
 */
export function transportSecurity(publicUrl: string | undefined): string | null {
  return publicUrl?.toLowerCase().startsWith("https://") ? "max-age=31536000" : null;
}

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const large = request.method === "POST" && LARGE_FORM_PAGES.test(pathname);
  const oversized = oversizedAction(request.method, pathname, request.headers, large && hasSignedSession(request));
  if (oversized)
    return new NextResponse(oversized.message, { status: oversized.status, headers: { "Content-Type": "text/plain" } });
  const isPublic = PUBLIC_PATHS.some((prefix) => pathname.startsWith(prefix));
  const hasSession = request.cookies.getAll().some((cookie) => cookie.name.includes(SESSION_COOKIE));
  if (!isPublic && !hasSession) {
    // The page asked for, to land on once signed in (checked again there: lib/auth/next-path.ts).
    return NextResponse.redirect(new URL(signInPathFor(pathname + request.nextUrl.search), request.nextUrl));
  }
  const nonce = btoa(crypto.randomUUID());
  const policy = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  // Next.js reads the nonce from the request's policy and puts it on the scripts it renders.
  requestHeaders.set("x-nonce", nonce);
  // For a page whose session turns out to have ended: its sign-in page still knows where to come back to.
  requestHeaders.set(ASKED_PATH_HEADER, pathname + request.nextUrl.search);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  response.headers.set("Cache-Control", "private, no-store, max-age=0");
  const hsts = transportSecurity(process.env.PAYOUT_DESK_URL);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|api/).*)"],
};
