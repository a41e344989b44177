import "server-only";
import type { Db } from "@/db";
import { findOpenAttemptForPeriod } from "@/db/queries/refunds";
import { AppError } from "@/lib/errors";
import { formatUsdText } from "@/lib/format";

/**
 * Refuses a refund of a period whose earlier refund is still being processed or waits for a person: said at review
 * already (a page opened before it was made still offers the form), and again when a refund is stored.
 */
export async function refuseWhileOpen(
  db: Db,
  period: { gameId: string; subscriptionId: string; periodSeq: number },
): Promise<void> {
  const open = await findOpenAttemptForPeriod(db, period.gameId, period.subscriptionId, period.periodSeq);
  if (!open) return;
  throw new AppError(
    "CONFLICT",
    `A refund of ${formatUsdText(open.amountUsd)} on this period is ${
      open.status === "pending" ? "still being processed" : "waiting for manual attention"
    } (started by ${open.actorEmail ?? "the system"}). ` +
      "Nothing else can be refunded on this period until it is settled.",
  );
}
