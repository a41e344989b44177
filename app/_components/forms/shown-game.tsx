import { EXPECTED_GAME_FIELD } from "@/lib/action-result";

/**
 * The hidden field naming the game a page was shown for. The selected game is kept per session, so every tab shares
 * it: a form sent after another tab switched game is refused with that reason (lib/actions.ts `assertExpectedGame`)
 * instead of acting on the other game or answering as if its ids were unknown.
 */
export function ShownGameField({ gameId }: { gameId: string }) {
  return <input type="hidden" name={EXPECTED_GAME_FIELD} value={gameId} />;
}
