import "server-only";
import type { Db } from "@/db";
import { openSecret, sealSecret } from "@/lib/crypto";
import { sealingKey } from "@/lib/keys/check";
import { payoutDetailsContext } from "@/lib/keys/sealed-columns";
import { type PayoutDetails, payoutDetailsSchema } from "./schemas";

/**
 * Payout details are sealed like game secrets, bound to the row's `seal_ref` (game and recipient, and for a pending
 * change the change's id): a sealed value copied to another recipient does not open. Only lib/profiles uses these;
 * outside it, details are opened through openPayoutDetails (lib/profiles/details.ts) alone.
 */
export async function sealDetails(trx: Db, details: PayoutDetails, sealRef: string): Promise<string> {
  return sealSecret(JSON.stringify(details), payoutDetailsContext(sealRef), await sealingKey(trx));
}

/**
 * Takes the key check's shared lock (what `sealDetails` takes) before a write locks any profile row. A key rotation
 * locks the key check, then every sealed row: a write holding a profile row while it waits for the key check would
 * deadlock with it (one of the two aborted); taken first, the write waits for the rotation, or the rotation for it.
 */
export async function holdSealingKey(trx: Db): Promise<void> {
  await sealingKey(trx);
}

export function openDetails(sealed: string, sealRef: string): PayoutDetails {
  return payoutDetailsSchema.parse(JSON.parse(openSecret(sealed, payoutDetailsContext(sealRef))));
}
