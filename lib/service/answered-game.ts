/**
 * What a person is told when the service answered for another game than the one asked about: the secret saved for
 * this game is another game's (pasted by mistake in Settings → Games). Its revenue, subscriptions and refunds must
 * never pass for this game's.
 */
export function answeredForAnotherGame(answered: string, gameId: string): string {
  return (
    `The service answered for game ${answered}, not ${gameId}: the game secret saved for ${gameId} is another ` +
    "game's. An admin updates it under Settings → Games"
  );
}

/** The first game other than `gameId` among those the service answered for; null when each answer was this game's. */
export function anotherGameAnswered(answered: Iterable<string>, gameId: string): string | null {
  for (const id of answered) if (id !== gameId) return id;
  return null;
}
