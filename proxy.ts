import { type NextRequest, NextResponse } from "next/server";
import { contentSecurityPolicy } from "./lib/csp.mjs";

// Redirects visitors without a session cookie to the sign-in page, marks every page no-store and gives every page a
// script nonce. This is a convenience, never the guard: pages, actions and route handlers check the session and role
// themselves.
const PUBLIC_PATHS = ["/sign-in", "/api/", "/_next/", "/favicon"];

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const isPublic = PUBLIC_PATHS.some((prefix) => pathname.startsWith(prefix));
  const hasSession = request.cookies.getAll().some((cookie) => cookie.name.includes("payout-desk.session_token"));
  if (!isPublic && !hasSession) {
    const url = request.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = "";
    return NextResponse.redirect(url);
  }
  const nonce = btoa(crypto.randomUUID());
  const policy = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  // Next.js reads the nonce from the request's policy and puts it on the scripts it renders.
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  response.headers.set("Cache-Control", "private, no-store, max-age=0");
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
