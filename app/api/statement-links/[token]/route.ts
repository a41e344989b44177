// GET /api/statement-links/[token] – a recipient's statement PDF through a signed, expiring link (no account)
// HEAD – what a download would be answered, without rendering, counting or auditing one
import { getDb } from "@/db";
import { log } from "@/lib/log";
import { definePublicRoute, jsonError } from "@/lib/routes";
import { readLinkDownloads } from "@/db/queries/statement-links";
import { downloadByLink, LINK_DOWNLOADS_PER_HOUR } from "@/lib/statements/link-download";
import { resolveStatementLink } from "@/lib/statements/links";
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
 * Mail scanners and link previews ask for a link's head before anyone opens it: answered from the link alone, so that
 * they neither use up the statement's hourly downloads nor show in the audit log as downloads.
 */
export const HEAD = definePublicRoute<{ token: string }>(
  "whether a signed statement link opens a statement; the link is the authorisation and nothing is sent",
  async (_request, context) => {
    const { token } = await context.params;
    try {
      const db = getDb();
      const target = await resolveStatementLink(db, token);
      const counted = target ? await readLinkDownloads(db, target.statementId) : null;
      // What a download would be answered now: the statement, or its hour's downloads used up.
      const tooOften = counted !== null && counted.downloads >= LINK_DOWNLOADS_PER_HOUR;
      const status = !target ? 404 : tooOften ? 429 : 200;
      const headers = new Headers({
        "Content-Type": status === 200 ? "application/pdf" : "application/json",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      });
      if (tooOften) headers.set("Retry-After", String(counted.secondsLeft));
      return new Response(null, { status, headers });
    } catch (error) {
      log.error("statement link check failed", { error });
      return new Response(null, { status: 503, headers: { "Cache-Control": "no-store" } });
    }
  },
);
