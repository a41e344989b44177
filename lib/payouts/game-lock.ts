import "server-only";
import type { Trx } from "@/db";
import { lockPayoutsOfGame } from "@/db/queries/payout-batches";
import { AppError } from "@/lib/errors";

/**
 * How long a payout change waits for another change of the same game to end: a results import or a payment file of a
 * large batch holds the game for a while, and a person's press is answered within this time, never left waiting on a
 * request a proxy may cut (a change that then still lands would have been reported as failed).
 */
export const PAYOUT_LOCK_WAIT = { ms: 20_000 };

export const PAYOUTS_BUSY =
  "Another payout change of this game is under way (a payment file being made, a provider's results or a profiles " +
  "file being applied, a batch being prepared): this change was not made. Try again in a minute.";

/** Takes the game's payout lock (db/queries/payout-batches.ts), refused with PAYOUTS_BUSY past PAYOUT_LOCK_WAIT. */
export async function holdPayoutsOfGame(trx: Trx, gameId: string): Promise<void> {
  if (!(await lockPayoutsOfGame(trx, gameId, PAYOUT_LOCK_WAIT.ms))) throw new AppError("CONFLICT", PAYOUTS_BUSY);
}
