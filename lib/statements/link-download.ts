import "server-only";
import type { Db } from "@/db";
import { recordAudit } from "@/lib/audit";
import { resolveStatementLink } from "./links";
import { type RenderedStatement, renderStatement } from "./render";

/** The statement a signed link opens, rendered, with the download in the audit log; null when refused. */
export async function downloadByLink(db: Db, token: string): Promise<RenderedStatement | null> {
  const target = await resolveStatementLink(db, token);
  if (!target) return null;
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
  return rendered;
}
