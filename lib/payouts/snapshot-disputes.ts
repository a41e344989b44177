import "server-only";
import type { Db } from "@/db";
import {
  listRecordedDisputeIds,
  listSnapshotDisputes,
  listSnapshotLinesOfOrders,
  listWaitingDisputeEvents,
  type SnapshotDisputeRow,
} from "@/db/queries/disputes";
import { disputeCloses, disputeOpenedDataSchema } from "@/lib/webhooks/disputes";
import { parseStoredEvent } from "@/lib/webhooks/event-json";

/** Waiting chargeback events read at most: a backlog beyond is a matter for the Webhooks page. */
const WAITING_READ = 500;

type WaitingOpening = { disputeId: string; orderId: string; reason: string | null; usdAmount: string; at: Date };

/** A waiting event's chargeback opening, if it is one the desk can read (a close, or an unreadable body, is not). */
function openingOf(event: { body: string; at: Date }): WaitingOpening | null {
  const parsed = parseStoredEvent(event.body);
  if (!parsed.success || parsed.event.envelope.event_type !== "purchase.disputed") return null;
  const data = parsed.event.envelope.data;
  if (disputeCloses(data)) return null;
  const opening = disputeOpenedDataSchema.safeParse(data);
  if (!opening.success) return null;
  const d = opening.data;
  return {
    disputeId: d.dispute_id,
    orderId: d.order_id,
    reason: d.reason ?? null,
    usdAmount: d.usd_amount,
    at: event.at,
  };
}

/**
 * The disputes of a snapshot's renewal lines, per recipient: those recorded, and the chargebacks whose opening event
 * is not processed yet (waiting for a worker, or its processing failed), as open. A chargeback is recorded only once
 * its event is processed; until then its renewal would be approved and paid as if nothing had happened. Its flag's
 * cause is the one the recorded dispute will have (`dispute:<id>:open`), so an override given meanwhile holds.
 */
export async function listDisputesOfSnapshot(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId?: number },
): Promise<SnapshotDisputeRow[]> {
  const recorded = await listSnapshotDisputes(db, params);
  const events = await listWaitingDisputeEvents(db, { gameId: params.gameId, limit: WAITING_READ });
  const openings = events.flatMap((e) => openingOf(e) ?? []);
  if (openings.length === 0) return recorded;
  const known = await listRecordedDisputeIds(db, {
    gameId: params.gameId,
    disputeIds: openings.map((o) => o.disputeId),
  });
  const waiting = openings.filter((o) => !known.has(o.disputeId));
  const lines = await listSnapshotLinesOfOrders(db, {
    snapshotId: params.snapshotId,
    orderIds: [...new Set(waiting.map((o) => o.orderId))],
    recipientPlayerId: params.recipientPlayerId,
  });
  const seen = new Set<string>();
  const added: SnapshotDisputeRow[] = [];
  for (const o of waiting) {
    if (seen.has(o.disputeId)) continue;
    seen.add(o.disputeId);
    for (const line of lines.filter((l) => l.mint_order_id === o.orderId))
      added.push({
        disputeId: o.disputeId,
        orderId: o.orderId,
        status: "open",
        reason: o.reason,
        usdAmount: o.usdAmount,
        currencyDebited: null,
        openedAt: o.at,
        closedAt: null,
        recipientPlayerId: Number(line.recipient_player_id),
        periodId: Number(line.period_id),
        subscriptionId: line.subscription_id,
        attributedAmountUsd: line.attributed_amount_usd,
      });
  }
  return [...recorded, ...added].sort(
    (a, b) => a.recipientPlayerId - b.recipientPlayerId || a.disputeId.localeCompare(b.disputeId),
  );
}
