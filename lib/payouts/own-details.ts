import "server-only";
import type { DbOrTrx } from "@/db";
import { listOwnFirstDetails } from "@/db/queries/profile-changes";
import type { PayoutStatementState } from "@/db/tables/payouts";

/**
 * Recipients of the batch, with a statement in one of `states` and something to pay, whose details in force are the
 * first ones, entered by `actorId`, and no payment has gone to them yet: under the two-person rule that person neither
 * approves the batch nor, once it is approved, releases such a recipient's hold (lib/payouts/offered-actions.ts). The
 * first `most` (4 unless given: the refusals name three), by player id, among `recipientPlayerIds` when given. Details
 * changed later are reviewed by someone else and flagged until paid (`payout_details_changed`); first details entered
 * after approval are flagged too. Read from that person's first details (an index), so a person who entered none
 * reads nothing more; one who entered a whole import's reads each recipient's last payment until it finds `most`.
 */
export function recipientsOnOwnFirstDetails(
  db: DbOrTrx,
  p: {
    gameId: string;
    batchId: string;
    actorId: string;
    states: readonly PayoutStatementState[];
    recipientPlayerIds?: readonly number[];
    most?: number;
  },
): Promise<number[]> {
  return listOwnFirstDetails(db, { ...p, enteredBy: p.actorId, limit: p.most ?? 4 });
}

/**
 * Of the held statements' recipients `held`, those whose hold `actorId` may not release under the batch's two-person
 * rule (statementVerdict, `ownFirstDetails`): read only for an approved or paid batch under that rule, whose preparer
 * releases no hold under it anyway, so not for them.
 */
export async function heldOnOwnFirstDetails(
  db: DbOrTrx,
  p: {
    gameId: string;
    batch: { id: string; status: string; twoPersonRule: boolean; preparedById: string };
    actorId: string | undefined;
    held: readonly number[];
  },
): Promise<number[]> {
  const { batch, actorId, held } = p;
  if (!actorId || !batch.twoPersonRule || batch.preparedById === actorId || held.length === 0) return [];
  if (batch.status !== "approved" && batch.status !== "paid") return [];
  return recipientsOnOwnFirstDetails(db, {
    gameId: p.gameId,
    batchId: batch.id,
    actorId,
    states: ["held"],
    recipientPlayerIds: held,
    most: held.length,
  });
}
