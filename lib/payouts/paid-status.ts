import "server-only";
import type { Db } from "@/db";
import { existsPaidStatementForPeriod } from "@/db/queries/payout-ledger";
/**
 * Whether the recipient attributed on a period has been paid for it, or is being paid: a statement whose snapshot held
 * that period's renewal line for that recipient, paid, in a payment file, or frozen in an approved batch. The refund
 * screen uses it to say that a reversal cannot be taken back from that payment and is carried against the recipient's
 * next payout instead.
 */
export async function wasRecipientPaidFor(db: Db, gameId: string, periodId: number): Promise<boolean> {
  return existsPaidStatementForPeriod(db, { gameId, periodId });
}
