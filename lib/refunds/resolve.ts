import "server-only";
import type { Db } from "@/db";
import { type RefundAttempt, resolveRefundAttempt } from "@/db/queries/refunds";
import type { RefundResolutionOutcome } from "@/db/types";
import type { ActingAs, Actor } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { markRefundWindowStale } from "./effects";

/**
 * Closes an attempt that needed manual attention, once a person has settled it with the service, with its audit line
 * (and, settled as refunded, the stale marks a refund makes) in the same transaction. Null when the attempt of this
 * game does not need attention (nothing changes).
 */
export async function resolveRefund(
  db: Db,
  request: { gameId: string; attemptId: string; outcome: RefundResolutionOutcome; note: string },
  as: ActingAs & { actor: Actor },
): Promise<RefundAttempt | null> {
  const { gameId, attemptId, outcome, note } = request;
  return db.transaction().execute(async (trx) => {
    const row = await resolveRefundAttempt(trx, gameId, attemptId, { note, by: as.actor.email, outcome });
    if (!row) return null;
    await recordAudit(trx, {
      ...as,
      action: "refund.resolve",
      gameId,
      target: `${row.subscriptionId} period ${row.periodSeq}`,
      idempotencyKey: row.clientRequestId,
      outcome: "resolved",
      detail: { attempt_id: row.id, resolution_outcome: outcome, amount_usd: row.amountUsd, note },
    });
    if (outcome === "refunded") {
      // The service made it, at a time no answer gave: between the confirmation and now. The windows holding either
      // no longer match the service (a webhook of the refund may never have come).
      const detail = {
        attemptId: row.id,
        subscriptionId: row.subscriptionId,
        periodId: row.periodId,
        periodSeq: row.periodSeq,
      };
      for (const at of new Set([row.createdAt.getTime(), Date.now()]))
        await markRefundWindowStale(trx, gameId, new Date(at), detail);
    }
    return row;
  });
}
