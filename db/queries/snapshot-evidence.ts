import "server-only";
import { countRows } from "./paging";
import type { Db } from "@/db";
import { exactAmount } from "@/core/money";
import type { RowOf } from "./row-of";
import { windowOf } from "./time-window";

/**
 * What a snapshot holds beside its recipients: reversals, sub-windows and raw pages. Every query filters by the
 * game.
 */

export type SnapshotReversalRow = {
  periodId: number;
  recipientPlayerId: number;
  subscriptionId: string;
  periodSeq: number;
  status: string;
  paidAt: Date | null;
  settledInThisWindow: boolean;
  amountUsd: string;
  originallyAttributedUsd: string;
  refundedToDateUsd: string;
  latestRefundAt: Date | null;
  reversedAttributedUsd: string;
  partnerRevenueReversedUsd: string;
  reversalBasis: string;
  netsToZeroInWindow: boolean;
  note: string | null;
  events: {
    seq: number;
    refundedAt: Date;
    refundedAmountUsd: string;
    cumulativeRefundedBeforeUsd: string;
    cumulativeRefundedAfterUsd: string;
    reversedAttributedUsd: string;
    partnerRevenueReversedUsd: string;
    partnerRevenueReversalBasis: string;
    isFullRefund: boolean;
  }[];
};

/** How many reversals a recipient has in a snapshot, and how many net to zero in its window (the list stops at 500). */
export async function countSnapshotReversals(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId: number },
): Promise<{ total: number; netsToZero: number }> {
  const theirs = db
    .selectFrom("snapshot_reversal as v")
    .innerJoin("snapshot as s", "s.id", "v.snapshot_id")
    .where("s.game_id", "=", params.gameId)
    .where("v.snapshot_id", "=", params.snapshotId)
    .where("v.recipient_player_id", "=", String(params.recipientPlayerId));
  const [total, netsToZero] = await Promise.all([
    countRows(theirs),
    countRows(theirs.where("v.nets_to_zero_in_window", "=", true)),
  ]);
  return { total, netsToZero };
}

/**
 * Reversals in a snapshot (of one recipient when given), oldest refund first, each with every refund event
 * (cumulative before and after, basis). Amounts exactly as the service gave them, as the statement lists them.
 */
export async function listSnapshotReversals(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId?: number; limit?: number },
): Promise<SnapshotReversalRow[]> {
  let query = db
    .selectFrom("snapshot_reversal as v")
    .innerJoin("snapshot as s", "s.id", "v.snapshot_id")
    .selectAll("v")
    .where("s.game_id", "=", params.gameId)
    .where("v.snapshot_id", "=", params.snapshotId);
  if (params.recipientPlayerId !== undefined)
    query = query.where("v.recipient_player_id", "=", String(params.recipientPlayerId));
  const rows = await query
    .orderBy("v.latest_refund_at")
    .orderBy("v.period_id")
    .limit(params.limit ?? 500)
    .execute();
  if (rows.length === 0) return [];
  const events = await db
    .selectFrom("snapshot_refund_event")
    .selectAll()
    .where("snapshot_id", "=", params.snapshotId)
    .where(
      "period_id",
      "in",
      rows.map((r) => r.period_id),
    )
    .orderBy("period_id")
    .orderBy("seq")
    .execute();
  const byPeriod = new Map<string, SnapshotReversalRow["events"]>();
  for (const e of events) {
    const list = byPeriod.get(e.period_id) ?? [];
    list.push({
      seq: e.seq,
      refundedAt: e.refunded_at,
      refundedAmountUsd: exactAmount(e.refunded_amount_usd),
      cumulativeRefundedBeforeUsd: exactAmount(e.cumulative_refunded_before_usd),
      cumulativeRefundedAfterUsd: exactAmount(e.cumulative_refunded_after_usd),
      reversedAttributedUsd: exactAmount(e.reversed_attributed_usd),
      partnerRevenueReversedUsd: exactAmount(e.partner_revenue_reversed_usd),
      partnerRevenueReversalBasis: e.partner_revenue_reversal_basis,
      isFullRefund: e.is_full_refund,
    });
    byPeriod.set(e.period_id, list);
  }
  return rows.map((r) => ({
    periodId: Number(r.period_id),
    recipientPlayerId: Number(r.recipient_player_id),
    subscriptionId: r.subscription_id,
    periodSeq: r.period_seq,
    status: r.status,
    paidAt: r.paid_at,
    settledInThisWindow: r.settled_in_this_window,
    amountUsd: exactAmount(r.amount_usd),
    originallyAttributedUsd: exactAmount(r.originally_attributed_usd),
    refundedToDateUsd: exactAmount(r.refunded_to_date_usd),
    latestRefundAt: r.latest_refund_at,
    reversedAttributedUsd: exactAmount(r.reversed_attributed_usd),
    partnerRevenueReversedUsd: exactAmount(r.partner_revenue_reversed_usd),
    reversalBasis: r.reversal_basis,
    netsToZeroInWindow: r.nets_to_zero_in_window,
    note: r.note,
    events: byPeriod.get(r.period_id) ?? [],
  }));
}

/** A part of how a snapshot was read (a sub-window or a page): its window, and its recipient (null: all of them). */
function toReadPart<R extends { window_start: Date; window_end: Date; recipient_player_id: string | null }>({
  window_start,
  window_end,
  recipient_player_id,
  ...rest
}: R) {
  return {
    ...rest,
    window: windowOf({ window_start, window_end }),
    recipientPlayerId: recipient_player_id === null ? null : Number(recipient_player_id),
  };
}

export async function listSubWindows(db: Db, params: { gameId: string; snapshotId: string }) {
  const rows = await db
    .selectFrom("snapshot_sub_window as w")
    .innerJoin("snapshot as s", "s.id", "w.snapshot_id")
    .select(["w.scope", "w.recipient_player_id", "w.window_start", "w.window_end", "w.depth", "w.reason", "w.pages"])
    .where("s.game_id", "=", params.gameId)
    .where("w.snapshot_id", "=", params.snapshotId)
    .orderBy("w.seq")
    .execute();
  return rows.map(toReadPart);
}

export type SubWindowRow = RowOf<typeof listSubWindows>;

/** The raw pages a snapshot was built from, in the order they were read (bodies as the service sent them). */
export async function listSnapshotPages(db: Db, params: { gameId: string; snapshotId: string; withBody?: boolean }) {
  const rows = await db
    .selectFrom("snapshot_page as p")
    .innerJoin("snapshot as s", "s.id", "p.snapshot_id")
    .select(["p.seq", "p.window_start", "p.window_end", "p.recipient_player_id", "p.page_offset", "p.fetched_at"])
    .$if(params.withBody === true, (qb) => qb.select("p.body"))
    .where("s.game_id", "=", params.gameId)
    .where("p.snapshot_id", "=", params.snapshotId)
    .orderBy("p.seq")
    .execute();
  return rows.map(({ page_offset, fetched_at, ...r }) => ({
    ...toReadPart(r),
    offset: page_offset,
    fetchedAt: fetched_at,
    body: "body" in r ? (r as { body: string }).body : null,
  }));
}
