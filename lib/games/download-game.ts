import "server-only";
import type { Db } from "@/db";
import type { GameSummary } from "@/db/queries/games";
import type { CurrentUser } from "@/lib/auth/session";
import { AppError } from "@/lib/errors";
import { isBrowserNavigation } from "@/lib/browser-request";
import { requireSelectedGame } from "./games";

/** The query parameter a download link carries: the game its page was drawn for. */
export const DOWNLOAD_GAME_PARAM = "game";

/** A download link of a page drawn for `gameId`. */
export function downloadHref(path: string, gameId: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}${downloadQuery("", gameId)}`;
}

/** A download's query (without its "?") naming the game its page was drawn for. */
export function downloadQuery(query: string, gameId: string): string {
  return `${query}${query ? "&" : ""}${DOWNLOAD_GAME_PARAM}=${encodeURIComponent(gameId)}`;
}

export const GAME_SWITCHED_DOWNLOAD =
  "The game was switched in another tab since this page was opened: this file would be of the game selected now, " +
  "not of the one the page showed. Switch back to that game (or reload the page) and download again.";

/**
 * The session's selected game, refused when the link names another: the session's game is shared by every tab, so
 * a page left open after a switch would otherwise download the other game's file under this page's name.
 */
export async function requireDownloadGame(db: Db, user: CurrentUser, request: Request): Promise<GameSummary> {
  const game = await requireSelectedGame(db, user);
  const shown = new URL(request.url).searchParams.get(DOWNLOAD_GAME_PARAM);
  if (shown !== null && shown !== game.id) throw new AppError("CONFLICT", GAME_SWITCHED_DOWNLOAD);
  return game;
}

/** For a person's browser, the page saying why; for a script, null (it gets the JSON refusal). */
export function gameSwitchedRedirect(request: Request, error: unknown): Response | null {
  if (!(error instanceof AppError) || error.message !== GAME_SWITCHED_DOWNLOAD || !isBrowserNavigation(request))
    return null;
  const shown = new URL(request.url).searchParams.get(DOWNLOAD_GAME_PARAM) ?? "";
  return new Response(null, {
    status: 303,
    headers: {
      Location: `/download-refused?${DOWNLOAD_GAME_PARAM}=${encodeURIComponent(shown.slice(0, 100))}`,
      "Cache-Control": "no-store",
    },
  });
}
