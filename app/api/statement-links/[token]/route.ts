// GET /api/statement-links/[token] – a recipient's statement PDF through a signed, expiring link (no account)
// HEAD – what a download would be answered, without rendering, counting or auditing one
import { getDb } from "@/db";
import { log } from "@/lib/log";
import { definePublicRoute, jsonError } from "@/lib/routes";
import { checkLink, downloadByLink } from "@/lib/statements/link-download";
import { documentResponse } from "@/lib/statements/response";

export const GET = definePublicRoute<{ token: string }>(
  "a recipient without an account downloads their own statement; the signed link is the authorisation",
  async (_request, context) => {
    const { token } = await context.params;
    let download: Awaited<ReturnType<typeof downloadByLink>>;
    try {
      download = await downloadByLink(getDb(), token);
    } catch (error) {
      // The recipient has no one to ask: a plain answer saying the link is fine and to come back, not a bare 500.
      log.error("statement link download failed", { error });
      return jsonError(
        503,
        "UNAVAILABLE",
        "The statement could not be prepared just now. The link still works: try it again in a few minutes.",
      );
    }
    // Tampered, expired, revoked and unknown links all get this same answer.
    if (download.kind === "refused") return jsonError(404, "NOT_FOUND", "No such statement.");
    if (download.kind === "too-often") {
      const refused = jsonError(
        429,
        "TOO_MANY_DOWNLOADS",
        "This statement was downloaded too many times in the last hour. Try again later.",
      );
      refused.headers.set("Retry-After", String(download.retryAfterSeconds));
      return refused;
    }
    return documentResponse(download.rendered, "pdf");
  },
);

/**
 * Mail scanners and link previews ask for a link's head before anyone opens it: answered as a download would be, so
 * that they neither use up the statement's hourly downloads nor show in the audit log as downloads.
 */
export const HEAD = definePublicRoute<{ token: string }>(
  "whether a signed statement link opens a statement; the link is the authorisation and nothing is sent",
  async (_request, context) => {
    const { token } = await context.params;
    try {
      const checked = await checkLink(getDb(), token);
      const status = checked.kind === "refused" ? 404 : checked.kind === "too-often" ? 429 : 200;
      const headers = new Headers({
        "Content-Type": status === 200 ? "application/pdf" : "application/json",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      });
      if (checked.kind === "too-often") headers.set("Retry-After", String(checked.retryAfterSeconds));
      return new Response(null, { status, headers });
    } catch (error) {
      log.error("statement link check failed", { error });
      return new Response(null, { status: 503, headers: { "Cache-Control": "no-store" } });
    }
  },
);
