"use client";

import { createContext, type ReactNode, useContext } from "react";
import { EXPECTED_GAME_FIELD } from "@/lib/action-result";

/**
 * The game a page was shown for. The selected game is kept per session, so every tab shares it: a form sent after
 * another tab switched game carries the game it showed, and the action refuses it instead of acting on the other
 * game or answering for it (lib/actions.ts `assertExpectedGame`).
 */
const ShownGame = createContext<string | null>(null);

export function ShownGameProvider({ gameId, children }: { gameId: string | null; children: ReactNode }) {
  return <ShownGame.Provider value={gameId}>{children}</ShownGame.Provider>;
}

/** The hidden field naming the game the page was shown for; nothing outside a game's pages. */
export function ShownGameField() {
  const gameId = useContext(ShownGame);
  return gameId ? <input type="hidden" name={EXPECTED_GAME_FIELD} value={gameId} /> : null;
}
