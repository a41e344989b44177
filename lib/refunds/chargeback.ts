import "server-only";
import type { Db } from "@/db";
import { standingDisputeOfOrder } from "@/db/queries/disputes";
import type { Chargeback } from "./impact";

/**
 * The chargeback of a period's card charge as `purchase.disputed` told the desk: open, or lost (the period report
 * shows a lost one no more: its held amount is released). Null for a period without a card charge.
 */
export async function chargebackOfPeriod(
  db: Db,
  gameId: string,
  period: { mint_order_id: string | null },
): Promise<Chargeback | null> {
  if (period.mint_order_id === null) return null;
  return standingDisputeOfOrder(db, { gameId, orderId: period.mint_order_id });
}
