import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey } from "@/lib/crypto";
import { secureCookies } from "@/lib/env";

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

/** The words' MAC: only words this desk wrote are shown (a neighbouring site may set a cookie for this path). */
const refusalMac = (body: string) =>
  createHmac("sha256", deriveKey("download-refusal")).update(body).digest("base64url").slice(0, 32);

/**
 * A person's browser sent to the page saying why a download was refused, the refusal's words in a cookie that only
 * that page reads, for a minute, signed (a JSON body would be saved as the "file" or shown raw).
 */
export function refusedDownloadRedirect(message: string): Response {
  const body = Buffer.from(message.slice(0, REFUSAL_MAX), "utf8").toString("base64url");
  return new Response(null, {
    status: 303,
    headers: {
      Location: "/download-refused?from=refusal",
      "Set-Cookie":
        `${REFUSAL_COOKIE}=${body}.${refusalMac(body)}; ` +
        `Path=/download-refused; Max-Age=60; HttpOnly; SameSite=Lax${secureCookies() ? "; Secure" : ""}`,
      "Cache-Control": "no-store",
    },
  });
}

/** The refusal's words a download left for the page, or null (none, no longer, or not written by this desk). */
export function readRefusal(value: string | undefined): string | null {
  const [body, mac, extra] = (value ?? "").split(".");
  if (!body || !mac || extra !== undefined) return null;
  const expected = Buffer.from(refusalMac(body));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return Buffer.from(body, "base64url").toString("utf8").slice(0, REFUSAL_MAX);
}
