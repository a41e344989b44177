import "server-only";
import type { Db } from "@/db";
import { listFilePayableMethods, listFilePayableStatements } from "@/db/queries/payment-flow";
import { openFlagsOf, readRecipientFlags } from "@/lib/payouts/flags";
import { isPaymentBar, PROFILE_METHODS } from "./items";
import { FILE_METHODS, type FileMethod } from "./schemas";

/** File-payable statements whose flags are read before the form is offered anyway (its refusal names the rest). */
export const BARS_READ = 200;

/**
 * The kinds of payment file that can pay anyone of the batch now: a payable statement whose recipient's profile names
 * details that kind pays (PayPal, Wise, a bank account, in USD or EUR) and who has no open flag that still stops the
 * money (PAYMENT_BARS), as making the file will check. Past BARS_READ such statements their flags are not read (a
 * batch that large is not all barred, and the refusal would name each one that is): the kinds their methods call for.
 */
export async function fileMethodsThatCanPay(
  db: Db,
  p: { gameId: string; batchId: string; snapshotId: string },
): Promise<FileMethod[]> {
  const rows = await listFilePayableStatements(db, { gameId: p.gameId, batchId: p.batchId, limit: BARS_READ + 1 });
  let payees: { method: string; currency: string }[];
  if (rows.length > BARS_READ) payees = await listFilePayableMethods(db, p);
  else {
    const flags = await readRecipientFlags(db, { ...p, recipientPlayerIds: rows.map((r) => r.recipientPlayerId) });
    payees = rows.filter(
      (r) => !openFlagsOf(flags, r.recipientPlayerId, r.recipientFlags).some((f) => isPaymentBar(f.flag)),
    );
  }
  // A SEPA file pays in EUR only (itemFor).
  const pays = (kind: FileMethod, payee: { method: string; currency: string }) =>
    PROFILE_METHODS[kind].includes(payee.method) && (kind !== "sepa" || payee.currency === "EUR");
  return FILE_METHODS.filter((kind) => payees.some((payee) => pays(kind, payee)));
}
