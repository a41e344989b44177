import "server-only";
import type { Db } from "@/db";

/**
 * Whether the recipient attributed on a period has already been paid for it. When they have, a refund's reversal
 * cannot be taken back from that payment and is carried against their next payout instead; the refund screen says so.
 *
 * Payout Desk records no payouts yet, so nobody has been paid from it and the answer is false. This is the one place
 * the refund tools ask: once payouts are recorded, answer from them here (a paid statement whose renewal lines
 * include `periodId` for this game).
 */
export async function wasRecipientPaidFor(_db: Db, _gameId: string, _periodId: number): Promise<boolean> {
  return false;
}
