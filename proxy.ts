import { type NextRequest, NextResponse } from "next/server";

// Redirects visitors without a session cookie to the sign-in page, and marks every page no-store. This is a
// convenience, never the guard: pages, actions and route handlers check the session and role themselves.
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
  const response = NextResponse.next();
  if (!pathname.startsWith("/_next/")) response.headers.set("Cache-Control", "private, no-store, max-age=0");
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
