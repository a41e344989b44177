import "server-only";
import type { DbOrTrx } from "@/db";
import { getSealedDetails, listSealedDetails } from "@/db/queries/profiles";
import type { PayoutDetails, PayoutMethod } from "./schemas";
import { openDetails } from "./seal";

/** What a payment file needs to pay one recipient: the method, the currency and the opened details. */
export type PayoutInstruction = {
  playerId: number;
  method: PayoutMethod;
  /** ISO 4217, upper case ("EUR"). */
  currency: string;
  /**
   * By method: paypal `{ paypalEmail }` or `{ paypalPayerId }`; wise `{ wiseEmail, wiseName }`; bank_transfer
   * `{ accountHolder, iban (electronic format), bic, bankCountry }`; manual `{}` (paid outside any file).
   */
  details: PayoutDetails;
};

/**
 * The one way out for payout details in the clear, for the payment-file writer: the applied details of the given
 * recipients of a game, by player id. Recipients without a payout method are absent from the map. Never log, show
 * or export what it returns; write it only into the provider's file.
 */
export async function openPayoutDetails(
  db: DbOrTrx,
  gameId: string,
  playerIds: readonly number[],
): Promise<Map<number, PayoutInstruction>> {
  const out = new Map<number, PayoutInstruction>();
  for (const row of await listSealedDetails(db, { gameId, playerIds })) {
    out.set(row.playerId, {
      playerId: row.playerId,
      method: row.method,
      currency: row.currency,
      details: openDetails(row.sealed, row.sealRef),
    });
  }
  return out;
}

/**
 * The names of the fields (method among them) in which `details` differ from the details in force, never their
 * values; null when none are in force.
 */
export async function changedDetailFields(
  db: DbOrTrx,
  p: { gameId: string; playerId: number; details: PayoutDetails },
): Promise<string[] | null> {
  const row = await getSealedDetails(db, p);
  if (!row) return null;
  const now: Record<string, unknown> = openDetails(row.sealed, row.sealRef);
  const next: Record<string, unknown> = p.details;
  const fields = new Set([...Object.keys(now), ...Object.keys(next)]);
  return [...fields].filter((field) => (now[field] ?? null) !== (next[field] ?? null)).sort();
}
