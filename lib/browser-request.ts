import "server-only";

/**
 * A person's browser following a download link, rather than a script or the CLI: it asks for HTML first. A refused
 * download then gets a page of the app saying why (a JSON body would be saved as the "file" or shown raw).
 */
export function isBrowserNavigation(request: Request): boolean {
  const mode = request.headers.get("sec-fetch-mode");
  if (mode && mode !== "navigate") return false;
  return (request.headers.get("accept") ?? "")
    .split(",")
    .some((part) => part.trim().toLowerCase().startsWith("text/html"));
}

/** The cookie a refused download's words travel in to the page that shows them (never the address: proxies log it). */
export const REFUSAL_COOKIE = "pd_download_refusal";

/** The longest refusal carried over; a longer one is cut (it is read on a page, not parsed). */
const REFUSAL_MAX = 1_000;

/**
 * A person's browser sent to the page saying why a download was refused, the refusal's words in a cookie that only
 * that page reads, for a minute (a JSON body would be saved as the "file" or shown raw).
 */
export function refusedDownloadRedirect(message: string): Response {
  const words = encodeURIComponent(message.slice(0, REFUSAL_MAX));
  return new Response(null, {
    status: 303,
    headers: {
      Location: "/download-refused?from=refusal",
      "Set-Cookie": `${REFUSAL_COOKIE}=${words}; Path=/download-refused; Max-Age=60; HttpOnly; SameSite=Lax`,
      "Cache-Control": "no-store",
    },
  });
}

/** The refusal's words a download left for the page, or null (none, or no longer). */
export function readRefusal(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value).slice(0, REFUSAL_MAX);
  } catch {
    return null;
  }
}
