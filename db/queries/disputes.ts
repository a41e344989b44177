import "server-only";
import { type Insertable, type RawBuilder, sql } from "kysely";
import type { Db } from "@/db";
import type { ServiceDisputeStatus, ServiceDisputeTable } from "@/db/types";

/**
 * Chargebacks reported by `purchase.disputed`, one row per dispute. The opening event and the closing one may arrive
 * in either order and more than once: each write keeps what the other brought and never reopens a closed dispute.
 */

export type DisputeOpened = {
  gameId: string;
  disputeId: string;
  orderId: string;
  transactionId: string | null;
  reason: string | null;
  usdAmount: string | null;
  openedAt: Date;
  eventId: string;
};

type DisputeColumn = keyof ServiceDisputeTable & string;

/**
 * Inserts the dispute, or on a second event of it sets `update`: each column either keeps what is stored (filled in
 * only where empty) or takes the incoming value.
 */
async function upsertDispute(
  db: Db,
  values: Insertable<ServiceDisputeTable>,
  update: { keep?: DisputeColumn[]; take?: DisputeColumn[] },
): Promise<{ status: ServiceDisputeStatus }> {
  const set: Record<string, RawBuilder<unknown>> = { updated_at: sql`clock_timestamp()` };
  for (const column of update.keep ?? []) {
    set[column] = sql`coalesce(${sql.ref(`service_dispute.${column}`)}, ${sql.ref(`excluded.${column}`)})`;
  }
  for (const column of update.take ?? []) set[column] = sql.ref(`excluded.${column}`);
  const row = await db
    .insertInto("service_dispute")
    .values(values)
    .onConflict((oc) => oc.constraint("service_dispute_uq").doUpdateSet(set))
    .returning("status")
    .executeTakeFirstOrThrow();
  return { status: row.status };
}

export async function recordDisputeOpened(db: Db, input: DisputeOpened): Promise<{ status: ServiceDisputeStatus }> {
  return upsertDispute(
    db,
    {
      game_id: input.gameId,
      dispute_id: input.disputeId,
      order_id: input.orderId,
      transaction_id: input.transactionId,
      reason: input.reason,
      usd_amount: input.usdAmount,
      status: "open",
      opened_at: input.openedAt,
      opened_event_id: input.eventId,
    },
    { keep: ["transaction_id", "reason", "usd_amount", "opened_at", "opened_event_id"] },
  );
}

export type DisputeClosed = {
  gameId: string;
  disputeId: string;
  orderId: string;
  status: "won" | "lost";
  currencyDebited: string | null;
  closedAt: Date;
  eventId: string;
};

export async function recordDisputeClosed(db: Db, input: DisputeClosed): Promise<{ status: ServiceDisputeStatus }> {
  return upsertDispute(
    db,
    {
      game_id: input.gameId,
      dispute_id: input.disputeId,
      order_id: input.orderId,
      status: input.status,
      closed_at: input.closedAt,
      currency_debited: input.currencyDebited,
      closed_event_id: input.eventId,
    },
    { take: ["status", "closed_at", "currency_debited", "closed_event_id"] },
  );
}

export type SnapshotDisputeRow = {
  disputeId: string;
  orderId: string;
  status: ServiceDisputeStatus;
  reason: string | null;
  usdAmount: string | null;
  currencyDebited: string | null;
  openedAt: Date | null;
  closedAt: Date | null;
  recipientPlayerId: number;
  periodId: number;
  subscriptionId: string;
  attributedAmountUsd: string | null;
  /** The window of the earlier batch whose statement carried this renewal's earnings into the batch's (not paid). */
  carriedFrom?: { startMs: number; endMs: number };
};

/** A dispute and the renewal line it names, as read (the columns both readers below select). */
type DisputeLineRow = {
  dispute_id: string;
  order_id: string;
  status: ServiceDisputeStatus;
  reason: string | null;
  usd_amount: string | null;
  currency_debited: string | null;
  opened_at: Date | null;
  closed_at: Date | null;
  recipient_player_id: string;
  period_id: string;
  subscription_id: string;
  attributed_amount_usd: string | null;
};

function disputeRowOf(r: DisputeLineRow): SnapshotDisputeRow {
  return {
    disputeId: r.dispute_id,
    orderId: r.order_id,
    status: r.status,
    reason: r.reason,
    usdAmount: r.usd_amount,
    currencyDebited: r.currency_debited,
    openedAt: r.opened_at,
    closedAt: r.closed_at,
    recipientPlayerId: Number(r.recipient_player_id),
    periodId: Number(r.period_id),
    subscriptionId: r.subscription_id,
    attributedAmountUsd: r.attributed_amount_usd,
  };
}

/** Disputes of renewal lines held by one snapshot (matched on the line's mint_order_id), per recipient. */
export async function listSnapshotDisputes(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId?: number },
): Promise<SnapshotDisputeRow[]> {
  let query = db
    .selectFrom("service_dispute as d")
    .innerJoin("snapshot_line as l", (join) =>
      join.onRef("l.mint_order_id", "=", "d.order_id").on("l.snapshot_id", "=", params.snapshotId),
    )
    .innerJoin("snapshot as s", (join) => join.onRef("s.id", "=", "l.snapshot_id").onRef("s.game_id", "=", "d.game_id"))
    .select([
      "d.dispute_id",
      "d.order_id",
      "d.status",
      "d.reason",
      sql<string | null>`d.usd_amount::text`.as("usd_amount"),
      sql<string | null>`d.currency_debited::text`.as("currency_debited"),
      "d.opened_at",
      "d.closed_at",
      "l.recipient_player_id",
      "l.period_id",
      "l.subscription_id",
      sql<string | null>`l.attributed_amount_usd::text`.as("attributed_amount_usd"),
    ])
    .where("d.game_id", "=", params.gameId);
  if (params.recipientPlayerId !== undefined)
    query = query.where("l.recipient_player_id", "=", String(params.recipientPlayerId));
  const rows = await query.orderBy("l.recipient_player_id").orderBy("d.dispute_id").execute();
  return rows.map(disputeRowOf);
}

/**
 * Disputes still open or lost of renewals an earlier batch's statement did not pay but carried, through one carry or
 * several, into a statement of this batch (earnings under the minimum payout): paying that statement pays those
 * renewals. Read from the disputes out: each one's renewal line in the snapshot of every other live batch of the game
 * (an index lookup each), that recipient's statement there if it carried, then its carries forward (indexed by the
 * statement carried): work grows with the game's open and lost disputes times its batches, not with the batch's size
 * (walking back from a batch of 100,000 statements, a third of them carrying in, would read every one).
 */
export async function listCarriedDisputes(
  db: Db,
  params: { gameId: string; batchId: string; recipientPlayerId?: number },
): Promise<SnapshotDisputeRow[]> {
  const recipient =
    params.recipientPlayerId === undefined
      ? sql``
      : sql`and l.recipient_player_id = ${String(params.recipientPlayerId)}`;
  const { rows } = await sql<DisputeLineRow & { window_start: Date; window_end: Date }>`
    with recursive seed as (
      select d.id as dispute_row, l.recipient_player_id, l.period_id, l.subscription_id,
             l.attributed_amount_usd::text as attributed_amount_usd, b.window_start, b.window_end,
             st.id as statement_id
        from service_dispute d
        join payout_batch b on b.game_id = d.game_id and b.id <> ${params.batchId} and b.status <> 'discarded'
        join snapshot_line l on l.snapshot_id = b.snapshot_id and l.mint_order_id = d.order_id
        join payout_statement st on st.batch_id = b.id and st.recipient_player_id = l.recipient_player_id
          and st.state = 'carried'
       where d.game_id = ${params.gameId} and d.status in ('open', 'lost') ${recipient}
    ), reach as (
      select * from seed
      union
      select r.dispute_row, r.recipient_player_id, r.period_id, r.subscription_id, r.attributed_amount_usd,
             r.window_start, r.window_end, c.to_statement_id
        from reach r join payout_carry c on c.from_statement_id = r.statement_id
    )
    select distinct d.dispute_id, d.order_id, d.status, d.reason, d.usd_amount::text as usd_amount,
           d.currency_debited::text as currency_debited, d.opened_at, d.closed_at, r.recipient_player_id,
           r.period_id, r.subscription_id, r.attributed_amount_usd, r.window_start, r.window_end
      from reach r
      join payout_statement t on t.id = r.statement_id and t.batch_id = ${params.batchId}
      join service_dispute d on d.id = r.dispute_row
     order by r.recipient_player_id, d.dispute_id`.execute(db);
  return rows.map((r) => ({
    ...disputeRowOf(r),
    carriedFrom: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
  }));
}

/** The dispute of a card charge (its mint order) that still stands or was lost, the open one first; null if none. */
export async function standingDisputeOfOrder(
  db: Db,
  params: { gameId: string; orderId: string },
): Promise<{ status: "open" | "lost"; usdAmount: string | null } | null> {
  const row = await db
    .selectFrom("service_dispute")
    .select(["status", sql<string | null>`usd_amount::text`.as("usd_amount")])
    .where("game_id", "=", params.gameId)
    .where("order_id", "=", params.orderId)
    .where("status", "in", ["open", "lost"])
    .orderBy(sql`status = 'open'`, "desc")
    .orderBy("updated_at", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!row || row.status === "won") return null;
  return { status: row.status, usdAmount: row.usd_amount };
}

/** Chargeback events of the game not processed yet (waiting for a worker, or failed), oldest first. */
export async function listWaitingDisputeEvents(
  db: Db,
  params: { gameId: string; limit: number },
): Promise<{ id: string; body: string; at: Date }[]> {
  const rows = await db
    .selectFrom("webhook_event")
    .select(["id", "body", "occurred_at", "received_at"])
    .where("game_id", "=", params.gameId)
    .where("event_type", "=", "purchase.disputed")
    .where("status", "in", ["pending", "failed"])
    .orderBy("id")
    .limit(params.limit)
    .execute();
  return rows.map((r) => ({ id: String(r.id), body: r.body, at: r.occurred_at ?? r.received_at }));
}

/** Which of these disputes are recorded (in any state). */
export async function listRecordedDisputeIds(
  db: Db,
  params: { gameId: string; disputeIds: readonly string[] },
): Promise<Set<string>> {
  if (params.disputeIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("service_dispute")
    .select("dispute_id")
    .where("game_id", "=", params.gameId)
    .where("dispute_id", "in", [...params.disputeIds])
    .execute();
  return new Set(rows.map((r) => r.dispute_id));
}

/** The renewal lines of one snapshot paid by these mint orders (what a chargeback names). */
export async function listSnapshotLinesOfOrders(
  db: Db,
  params: { snapshotId: string; orderIds: readonly string[]; recipientPlayerId?: number },
) {
  if (params.orderIds.length === 0) return [];
  let query = db
    .selectFrom("snapshot_line")
    .select([
      "mint_order_id",
      "recipient_player_id",
      "period_id",
      "subscription_id",
      sql<string | null>`attributed_amount_usd::text`.as("attributed_amount_usd"),
    ])
    .where("snapshot_id", "=", params.snapshotId)
    .where("mint_order_id", "in", [...params.orderIds]);
  if (params.recipientPlayerId !== undefined)
    query = query.where("recipient_player_id", "=", String(params.recipientPlayerId));
  return query.execute();
}
