import "server-only";
import type { Db } from "@/db";
import { countLinkDownload, readLinkDownloads } from "@/db/queries/statement-links";
import { recordAudit } from "@/lib/audit";
import { log } from "@/lib/log";
import { resolveStatementLink } from "./links";
import { type RenderedStatement, renderStatement } from "./render";

/**
 * Downloads of one statement through its links in an hour from the first of them (the database's clock), all links
 * together; past it a download is refused until that hour is over. A link is a public address that anyone it was
 * forwarded to can open, and each download renders the PDF and writes an audit line: a recipient needs a handful.
 */
export const LINK_DOWNLOADS_PER_HOUR = 20;

export type LinkDownload =
  | { kind: "statement"; rendered: RenderedStatement }
  /** Tampered, expired, revoked and unknown links alike. */
  | { kind: "refused" }
  | { kind: "too-often"; retryAfterSeconds: number };

/** The statement a signed link opens, rendered, with the download in the audit log. */
export async function downloadByLink(db: Db, token: string): Promise<LinkDownload> {
  const target = await resolveStatementLink(db, token);
  if (!target) return { kind: "refused" };
  const counted = await countLinkDownload(db, target.statementId);
  if (counted.downloads > LINK_DOWNLOADS_PER_HOUR) {
    // Said once in the hour, not on every refused download.
    if (counted.downloads === LINK_DOWNLOADS_PER_HOUR + 1)
      log.warn("statement link downloads over the hourly limit", {
        statementId: target.statementId,
        limit: LINK_DOWNLOADS_PER_HOUR,
      });
    return { kind: "too-often", retryAfterSeconds: counted.secondsLeft };
  }
  const acting = { actor: null, via: "web" as const };
  const rendered = await renderStatement(db, { gameId: target.gameId, statementId: target.statementId }, acting);
  await recordAudit(db, {
    ...acting,
    action: "statement.link.download",
    gameId: target.gameId,
    target: target.statementId,
    outcome: "succeeded",
    detail: { number: rendered.doc.label, pdfSha256: rendered.pdfSha256 },
  });
  return { kind: "statement", rendered };
}

/**
 * What a download through the link would be answered now, without one: nothing rendered, counted or audited (mail
 * scanners and link previews ask for a link's head before anyone opens it).
 */
export async function checkLink(
  db: Db,
  token: string,
): Promise<{ kind: "statement" } | Exclude<LinkDownload, { kind: "statement" }>> {
  const target = await resolveStatementLink(db, token);
  if (!target) return { kind: "refused" };
  const counted = await readLinkDownloads(db, target.statementId);
  // The next download would be one more than those counted.
  if (counted && counted.downloads + 1 > LINK_DOWNLOADS_PER_HOUR)
    return { kind: "too-often", retryAfterSeconds: counted.secondsLeft };
  return { kind: "statement" };
}
