import "server-only";
import type { Db } from "@/db";
import { listFilePayableStatements } from "@/db/queries/payment-flow";
import { openFlagsOf, readRecipientFlags } from "@/lib/payouts/flags";
import { isPaymentBar } from "./items";

/** File-payable statements whose flags are read before the form is offered anyway (its refusal names the rest). */
export const BARS_READ = 200;

/**
 * Whether a payment file can pay anyone of the batch now: a payable statement whose recipient's profile names details
 * a file can pay (PayPal, Wise, a bank account, in USD or EUR) and who has no open flag that still stops the money
 * (PAYMENT_BARS), as making the file will check. Past BARS_READ such statements it is taken as yes, their flags not
 * read: a batch that large is not all barred, and the refusal would name each one that is.
 */
export async function fileCanPayAnyone(
  db: Db,
  p: { gameId: string; batchId: string; snapshotId: string },
): Promise<boolean> {
  const rows = await listFilePayableStatements(db, { gameId: p.gameId, batchId: p.batchId, limit: BARS_READ + 1 });
  if (rows.length === 0) return false;
  if (rows.length > BARS_READ) return true;
  const flags = await readRecipientFlags(db, { ...p, recipientPlayerIds: rows.map((r) => r.recipientPlayerId) });
  return rows.some((r) => !openFlagsOf(flags, r.recipientPlayerId, r.recipientFlags).some((f) => isPaymentBar(f.flag)));
}
