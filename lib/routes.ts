import "server-only";
import { isAppError } from "@/lib/errors";
import { isBrowserNavigation, refusedDownloadRedirect } from "@/lib/browser-request";
import { gameSwitchedRedirect } from "@/lib/games/download-game";
import { log } from "@/lib/log";
import { type CurrentUser, requireRole } from "./auth/session";
import type { Role } from "./auth/roles";

type RouteContext<P> = { params: Promise<P> };
type RouteHandler<P> = (request: Request, ctx: { user: CurrentUser; params: P }) => Promise<Response>;

/** A route handler, with its required role recorded (or `public` with the reason it needs no session). */
export type GuardedRoute<P> = ((request: Request, context: RouteContext<P>) => Promise<Response>) & {
  requiredRole: Role | "public";
};

const STATUS = { UNAUTHENTICATED: 401, FORBIDDEN: 403, INVALID_INPUT: 400, NOT_FOUND: 404, CONFLICT: 409 } as const;

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "Cache-Control": "no-store" } });
}

export const STARTED_ELSEWHERE =
  "This request was started from another site: nothing was read or downloaded. Open the page in Payout Desk and " +
  "download from there.";

/**
 * A request a browser says another site started (`Sec-Fetch-Site` cross-site or same-site): a link or a form elsewhere
 * would have a signed-in person's browser download a file, audited as theirs, without their asking. A typed address
 * or a bookmark (`none`), the desk's own pages (`same-origin`) and clients that send no such header (scripts) pass.
 */
function startedElsewhere(request: Request): Response | null {
  const site = request.headers.get("sec-fetch-site");
  if (site !== "cross-site" && site !== "same-site") return null;
  if (isBrowserNavigation(request)) return seeOther("/download-refused?from=elsewhere");
  return jsonError(403, "FORBIDDEN", STARTED_ELSEWHERE);
}

/**
 * Every answer of a route handler is kept by no cache, a browser's or a proxy's (the proxy that marks pages so does not
 * see /api/, proxy.ts), unless the handler said otherwise.
 */
function uncached(response: Response): Response {
  if (response.headers.has("Cache-Control")) return response;
  const headers = new Headers(response.headers);
  headers.set("Cache-Control", "private, no-store, max-age=0");
  // Made anew: the headers of some answers (Response.redirect's) cannot be changed.
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Route handlers that need a session are written with this: a request another site started is refused, then the role
 * check comes before anything else.
 */
export function defineRoute<P = Record<string, string>>(role: Role, handler: RouteHandler<P>): GuardedRoute<P> {
  const guarded = async (request: Request, context: RouteContext<P>): Promise<Response> => {
    // HEAD would run the GET handler and drop its body unread: a download would take a reading slot and a database
    // connection and never give them back. These routes answer GET only.
    if (request.method === "HEAD") return new Response(null, { status: 405, headers: { Allow: "GET" } });
    const elsewhere = startedElsewhere(request);
    if (elsewhere) return elsewhere;
    try {
      const user = await requireRole(role, `${request.method} ${new URL(request.url).pathname}`);
      const params = (await context?.params) ?? ({} as P);
      return await handler(request, { user, params });
    } catch (error) {
      const switched = gameSwitchedRedirect(request, error);
      if (switched) return switched;
      if (isAppError(error)) {
        // A person following a download link reads why on a page of the desk (signed out: the sign-in page); a
        // script gets the JSON refusal.
        if (isBrowserNavigation(request))
          return error.code === "UNAUTHENTICATED" ? seeOther("/sign-in") : refusedDownloadRedirect(error.message);
        const status = (STATUS as Record<string, number>)[error.code] ?? 400;
        return jsonError(status, error.code, error.message);
      }
      log.error("route failed", { path: new URL(request.url).pathname, error });
      if (isBrowserNavigation(request))
        return refusedDownloadRedirect("Something went wrong, and the error was logged. Try again in a minute.");
      return jsonError(500, "INTERNAL", "Something went wrong. The error was logged.");
    }
  };
  const route = async (request: Request, context: RouteContext<P>) => uncached(await guarded(request, context));
  return Object.assign(route, { requiredRole: role });
}

/** A route handler that is deliberately reachable without a session (it authenticates by other means). */
export function definePublicRoute<P = Record<string, string>>(
  reason: string,
  handler: (request: Request, context: RouteContext<P>) => Promise<Response>,
): GuardedRoute<P> & { publicReason: string } {
  const route = async (request: Request, context: RouteContext<P>) => uncached(await handler(request, context));
  return Object.assign(route, { requiredRole: "public" as const, publicReason: reason });
}
