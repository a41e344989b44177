// GET /api/exports/[kind] – CSV exports for accounting (payouts, lines, reversals, journals), streamed
import { getDb } from "@/db";
import { isAppError } from "@/lib/errors";
import { isBrowserNavigation } from "@/lib/browser-request";
import { exportResponse, parseExportQuery, refusedExportRedirect, webExportRequest } from "@/lib/exports/http";
import { gameSwitchedRedirect, requireDownloadGame } from "@/lib/games/download-game";
import { defineRoute } from "@/lib/routes";

export const GET = defineRoute<{ kind: string }>("finance", async (request, { user, params }) => {
  const url = new URL(request.url);
  try {
    const query = parseExportQuery(params.kind, url.searchParams);
    const db = getDb();
    // The game its page was drawn for, when the link names it: a file of another game is never sent under its name.
    const game = await requireDownloadGame(db, user, request);
    const actor = { id: user.id, email: user.email };
    return await exportResponse(db, webExportRequest(query, game.id, actor), request.signal);
  } catch (error) {
    // Scripts and the CLI get the JSON error (by their Accept header); a person's browser gets a page with the reason.
    const switched = gameSwitchedRedirect(request, error);
    if (switched) return switched;
    if (isAppError(error) && isBrowserNavigation(request)) return refusedExportRedirect(params.kind, url.searchParams);
    throw error;
  }
});
