import "server-only";
import type { Db } from "@/db";
import {
  listCarriedDisputes,
  listRecordedDisputeIds,
  listSnapshotDisputes,
  listSnapshotLinesOfOrders,
  listWaitingDisputeEvents,
  type SnapshotDisputeRow,
} from "@/db/queries/disputes";
import { disputeClosedDataSchema, disputeCloses, disputeOpenedDataSchema } from "@/lib/webhooks/disputes";
import { parseStoredEvent } from "@/lib/webhooks/event-json";

/** Waiting chargeback events read at most: a backlog beyond is a matter for the Webhooks page. */
const WAITING_READ = 500;

type WaitingOpening = { disputeId: string; orderId: string; reason: string | null; usdAmount: string; at: Date };
type WaitingLoss = { disputeId: string; orderId: string; at: Date };

/**
 * What a waiting event says of its chargeback, read once: an opening, a loss (a dispute won changes no flag till
 * recorded), or nothing the desk can read (another type, an unreadable body).
 */
function waitingChargeback(event: {
  body: string;
  at: Date;
}): { opening: WaitingOpening } | { loss: WaitingLoss } | null {
  const parsed = parseStoredEvent(event.body);
  if (!parsed.success || parsed.event.envelope.event_type !== "purchase.disputed") return null;
  const data = parsed.event.envelope.data;
  if (disputeCloses(data)) {
    const close = disputeClosedDataSchema.safeParse(data);
    if (!close.success || close.data.dispute_status !== "lost") return null;
    return { loss: { disputeId: close.data.dispute_id, orderId: close.data.order_id, at: event.at } };
  }
  const opening = disputeOpenedDataSchema.safeParse(data);
  if (!opening.success) return null;
  const d = opening.data;
  return {
    opening: {
      disputeId: d.dispute_id,
      orderId: d.order_id,
      reason: d.reason ?? null,
      usdAmount: d.usd_amount,
      at: event.at,
    },
  };
}

/**
 * The disputes of a snapshot's renewal lines, per recipient: those recorded, and the chargebacks whose events are not
 * processed yet (waiting for a worker, or their processing failed): an opening as open, a loss as lost. A chargeback
 * is recorded only once its event is processed; until then its renewal would be approved and paid as if nothing had
 * happened, or, lost, paid under an override given while it was open. Each flag's cause is the one the recorded
 * dispute will have (`dispute:<id>:open`, `dispute:<id>:lost`), so an override given meanwhile holds only for it.
 */
async function listDisputesOfSnapshot(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId?: number },
  waitingChargebacks: WaitingChargebacks,
): Promise<SnapshotDisputeRow[]> {
  const recorded = await listSnapshotDisputes(db, params);
  const { openings, losses } = waitingChargebacks;
  if (openings.length === 0 && losses.size === 0) return recorded;
  const known = await listRecordedDisputeIds(db, {
    gameId: params.gameId,
    disputeIds: [...openings.map((o) => o.disputeId), ...losses.keys()],
  });
  const waiting = openings.filter((o) => !known.has(o.disputeId));
  const opened = new Set(waiting.map((o) => o.disputeId));
  // A loss whose dispute is neither recorded nor waiting to be opened (the opening failed to be read, or came last).
  const lostOnly = [...losses.values()].filter((l) => !known.has(l.disputeId) && !opened.has(l.disputeId));
  const lines = await listSnapshotLinesOfOrders(db, {
    snapshotId: params.snapshotId,
    orderIds: [...new Set([...waiting, ...lostOnly].map((o) => o.orderId))],
    recipientPlayerId: params.recipientPlayerId,
  });
  const seen = new Set<string>();
  const added: SnapshotDisputeRow[] = [];
  for (const o of [...waiting, ...lostOnly.map((l) => ({ ...l, reason: null, usdAmount: null }))]) {
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
  return byRecipient([...recorded, ...added].map(lostBy(losses)));
}

type WaitingChargebacks = { openings: WaitingOpening[]; losses: Map<string, WaitingLoss> };

/** The chargebacks the game's waiting events say, read once: the openings and the losses (by dispute). */
async function readWaitingChargebacks(db: Db, gameId: string): Promise<WaitingChargebacks> {
  const events = await listWaitingDisputeEvents(db, { gameId, limit: WAITING_READ });
  const read = events.map(waitingChargeback);
  return {
    openings: read.flatMap((c) => (c && "opening" in c ? [c.opening] : [])),
    losses: new Map(read.flatMap((c) => (c && "loss" in c ? [[c.loss.disputeId, c.loss] as const] : []))),
  };
}

/** A dispute whose loss waits to be processed, as the loss will record it. */
function lostBy(losses: Map<string, WaitingLoss>) {
  return (row: SnapshotDisputeRow): SnapshotDisputeRow => {
    const loss = losses.get(row.disputeId);
    return loss && row.status !== "lost" ? { ...row, status: "lost", closedAt: loss.at } : row;
  };
}

function byRecipient(rows: SnapshotDisputeRow[]): SnapshotDisputeRow[] {
  return rows.sort((a, b) => a.recipientPlayerId - b.recipientPlayerId || a.disputeId.localeCompare(b.disputeId));
}

/**
 * The disputes a batch's statements pay for: those of its snapshot's renewals (listDisputesOfSnapshot), and those of
 * renewals an earlier month's statement carried into one of its statements, unpaid (a balance under the minimum
 * payout): paying the statement pays them, so their chargebacks stop it as this month's would. Before a batch is
 * prepared nothing is carried in yet: the snapshot's own. A carried renewal's chargeback is read once recorded (its
 * opening's event processed); a loss waiting to be processed flags it lost, as for the snapshot's own.
 */
export async function listDisputesOfBatch(
  db: Db,
  params: { gameId: string; snapshotId: string; batchId: string | null; recipientPlayerId?: number },
): Promise<SnapshotDisputeRow[]> {
  const waiting = await readWaitingChargebacks(db, params.gameId);
  const own = await listDisputesOfSnapshot(db, params, waiting);
  if (params.batchId === null) return own;
  const carried = await listCarriedDisputes(db, {
    gameId: params.gameId,
    batchId: params.batchId,
    recipientPlayerId: params.recipientPlayerId,
  });
  if (carried.length === 0) return own;
  // A loss waiting to be processed flags a carried renewal lost too, so an override of it open holds no more.
  return byRecipient([...own, ...carried.map(lostBy(waiting.losses))]);
}
