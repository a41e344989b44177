import "server-only";
import type { Db } from "@/db";
import {
  getLiveBatchRow,
  getPayoutBatchRow,
  listPayoutBatchRows,
  listPayoutStatementPage,
  type PayoutBatchRow,
  type PayoutStatementRow,
  type StatementPageKey,
} from "@/db/queries/payout-ledger";
import type { PayoutBatchStatus, PayoutStatementState } from "@/db/types";
import type { TimeWindow } from "@/core/time";
import { formatUsd } from "@/lib/money";
import { formatInstant } from "@/lib/time";

/** Payout batches and statements as the pages, the exports and the ledger read them. */

export type PayoutStatement = {
  id: string;
  batchId: string;
  batchStatus: PayoutBatchStatus;
  snapshotId: string;
  snapshotVersion: number;
  windowStart: string;
  windowEnd: string;
  recipientPlayerId: number;
  playerName: string | null;
  playerEmail: string | null;
  resolved: boolean;
  /** False for a recipient with no activity in the window, on the statement only to receive a carried balance. */
  inSnapshot: boolean;
  renewalCount: number;
  subscriptionCount: number;
  reversalCount: number;
  grossAttributedUsd: string;
  /** What the statement deducts of the reversals its snapshot reports for the recipient. */
  reversedAttributedUsd: string;
  /**
   * Reported too, and deducted already by another window's approved batch (a reversal the service knows only from its
   * period row, reported wholly again after a later refund): not deducted again.
   */
  reversedBeforeUsd: string;
  netAttributedUsd: string;
  carriedInUsd: string;
  /** net + carried in. */
  availableUsd: string;
  /** What to pay: available when at least the minimum payout, else 0.00. */
  payableUsd: string;
  /** available − payable: a negative balance or a payable under the minimum, taken into a later statement. */
  carryOutUsd: string;
  /** The minimum payout in force when the batch was prepared. */
  minPayoutUsd: string;
  state: PayoutStatementState;
  holdReason: string | null;
  stateChangedAt: string;
  stateChangedBy: string | null;
  paidAmountUsd: string | null;
  paidOn: string | null;
  paymentMethod: string | null;
  paymentReference: string | null;
  closedAt: string | null;
  recipientFlags: string[];
};

export type PayoutBatchSummary = {
  id: string;
  gameId: string;
  windowStart: string;
  windowEnd: string;
  snapshotId: string;
  snapshotVersion: number;
  status: PayoutBatchStatus;
  minPayoutUsd: string;
  twoPersonRule: boolean;
  preparedById: string;
  preparedByEmail: string;
  preparedAt: string;
  approvedById: string | null;
  approvedByEmail: string | null;
  approvedAt: string | null;
  paidAt: string | null;
  discardedAt: string | null;
  discardReason: string | null;
  /** Changes made so far (payout_batch.revision); read before the batch's figures, a page sends it back. */
  revision: string;
};

function iso(value: Date | null): string | null {
  return value ? formatInstant(value) : null;
}

export function toBatchSummary(r: PayoutBatchRow): PayoutBatchSummary {
  return {
    id: r.id,
    gameId: r.game_id,
    windowStart: formatInstant(r.window_start),
    windowEnd: formatInstant(r.window_end),
    snapshotId: r.snapshot_id,
    snapshotVersion: r.snapshot_version,
    status: r.status,
    minPayoutUsd: formatUsd(r.min_payout_usd),
    twoPersonRule: r.two_person_rule,
    preparedById: r.prepared_by_id,
    preparedByEmail: r.prepared_by_email,
    preparedAt: formatInstant(r.prepared_at),
    approvedById: r.approved_by_id,
    approvedByEmail: r.approved_by_email,
    approvedAt: iso(r.approved_at),
    paidAt: iso(r.paid_at),
    discardedAt: iso(r.discarded_at),
    discardReason: r.discard_reason,
    revision: String(r.revision),
  };
}

export async function getPayoutBatch(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<PayoutBatchSummary | null> {
  const row = await getPayoutBatchRow(db, params);
  return row ? toBatchSummary(row) : null;
}

/** The live (not discarded) batch of exactly this window, if any. */
export async function getLiveBatch(
  db: Db,
  params: { gameId: string; window: TimeWindow },
): Promise<PayoutBatchSummary | null> {
  const row = await getLiveBatchRow(db, params);
  return row ? toBatchSummary(row) : null;
}

/**
 * Batches of a game, newest window first; discarded ones only when asked. Filter by the snapshot they were built on.
 */
export async function listPayoutBatches(
  db: Db,
  params: { gameId: string; snapshotId?: string; includeDiscarded?: boolean },
): Promise<PayoutBatchSummary[]> {
  return (await listPayoutBatchRows(db, params)).map(toBatchSummary);
}

export function toStatement(r: PayoutStatementRow): PayoutStatement {
  return {
    id: r.id,
    batchId: r.batch_id,
    batchStatus: r.batch_status,
    snapshotId: r.snapshot_id,
    snapshotVersion: r.snapshot_version,
    windowStart: formatInstant(r.window_start),
    windowEnd: formatInstant(r.window_end),
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.player_name,
    playerEmail: r.player_email,
    resolved: r.resolved,
    inSnapshot: r.in_snapshot,
    renewalCount: r.renewal_count,
    subscriptionCount: r.subscription_count,
    reversalCount: r.reversal_count,
    grossAttributedUsd: formatUsd(r.gross_attributed_usd),
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    reversedBeforeUsd: formatUsd(r.reversed_before_usd),
    netAttributedUsd: formatUsd(r.net_attributed_usd),
    carriedInUsd: formatUsd(r.carried_in_usd),
    availableUsd: formatUsd(r.available_usd),
    payableUsd: formatUsd(r.payable_usd),
    carryOutUsd: formatUsd(r.carry_out_usd),
    minPayoutUsd: formatUsd(r.min_payout_usd),
    state: r.state,
    holdReason: r.hold_reason,
    stateChangedAt: formatInstant(r.state_changed_at),
    stateChangedBy: r.state_changed_by_email,
    paidAmountUsd: r.paid_amount_usd === null ? null : formatUsd(r.paid_amount_usd),
    paidOn: r.paid_on_day,
    paymentMethod: r.payment_method,
    paymentReference: r.payment_reference,
    closedAt: iso(r.closed_at),
    recipientFlags: r.recipient_flags,
  };
}

/**
 * Every statement of one batch, by recipient id. Use `iteratePayoutStatements` to read a large batch in pages of
 * `pageSize` without holding it all.
 */
export async function listPayoutStatements(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<PayoutStatement[]> {
  const out: PayoutStatement[] = [];
  for await (const statement of iteratePayoutStatements(db, params)) out.push(statement);
  return out;
}

/** The first `limit` statements of a batch in one state, by recipient id (a page shows a few hundred at most). */
export async function listStatementsInState(
  db: Db,
  params: { gameId: string; batchId: string; state: PayoutStatementState; limit: number },
): Promise<PayoutStatement[]> {
  return (await listPayoutStatementPage(db, { ...params, after: null })).map(toStatement);
}

export async function* iteratePayoutStatements(
  db: Db,
  params: { gameId: string; batchId?: string; recipientPlayerId?: number; pageSize?: number },
): AsyncGenerator<PayoutStatement> {
  const pageSize = Math.min(Math.max(params.pageSize ?? 2000, 1), 10_000);
  let after: StatementPageKey | null = null;
  for (;;) {
    const rows = await listPayoutStatementPage(db, {
      gameId: params.gameId,
      batchId: params.batchId,
      recipientPlayerId: params.recipientPlayerId,
      after,
      limit: pageSize,
    });
    for (const row of rows) yield toStatement(row);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { windowStart: last.window_start, batchId: last.batch_id, recipient: last.recipient_player_id };
  }
}
