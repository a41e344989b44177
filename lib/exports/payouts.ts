import "server-only";
import { iteratePayoutStatements, type PayoutStatement } from "@/lib/payouts/ledger";
import type { ExportColumn, ExportRow } from "./csv";
import type { ExportKindDefinition } from "./types";

export const PAYOUT_COLUMNS: readonly ExportColumn[] = [
  { name: "batch_id", type: "text", description: "The payout batch (one per game and window)." },
  { name: "batch_status", type: "text", description: "draft, approved, paid or discarded." },
  { name: "window_start", type: "instant", description: "Start of the window paid from (UTC, inclusive)." },
  { name: "window_end", type: "instant", description: "End of the window (UTC, exclusive)." },
  { name: "snapshot_id", type: "text", description: "The snapshot the figures were frozen to." },
  { name: "snapshot_version", type: "integer", description: "Its version number for the window." },
  { name: "statement_id", type: "text", description: "The recipient's statement in the batch." },
  { name: "recipient_player_id", type: "integer", description: "The recipient." },
  { name: "recipient_name", type: "text", description: "Name (empty when the service could not resolve the player)." },
  { name: "recipient_email", type: "text", description: "Email (empty when unresolved)." },
  { name: "resolved", type: "boolean", description: "Whether the service resolved the player record." },
  {
    name: "in_snapshot",
    type: "boolean",
    description: "False for a recipient with no activity in the window, listed only to receive a carried balance.",
  },
  { name: "renewal_count", type: "integer", description: "Renewals credited to the recipient in the window." },
  { name: "subscription_count", type: "integer", description: "Distinct subscriptions behind them." },
  { name: "reversal_count", type: "integer", description: "Reversals in the window." },
  { name: "gross_attributed_usd", type: "decimal", description: "Share earned on renewals settled in the window." },
  {
    name: "reversed_attributed_usd",
    type: "decimal",
    description: "Share reversed by refunds recorded in the window, as the statement deducts it.",
  },
  {
    name: "reversed_before_usd",
    type: "decimal",
    description:
      "Reported reversed in the window too, and deducted already by another window's batch (a reversal reported " +
      "again after a later refund): not deducted again. 0.00 for most.",
  },
  { name: "net_attributed_usd", type: "decimal", description: "gross − reversed (may be negative)." },
  {
    name: "carried_in_usd",
    type: "decimal",
    description: "Balance brought from earlier statements (negative net or payable under the minimum).",
  },
  { name: "available_usd", type: "decimal", description: "net + carried in." },
  {
    name: "payable_usd",
    type: "decimal",
    description: "What to pay: available when at least the minimum payout, else 0.00.",
  },
  {
    name: "carry_out_usd",
    type: "decimal",
    description: "available − payable, taken into the recipient's next statement.",
  },
  { name: "min_payout_usd", type: "decimal", description: "The minimum payout in force when the batch was prepared." },
  { name: "state", type: "text", description: "draft, approved, held, in_payment, paid, returned or carried." },
  { name: "hold_reason", type: "text", description: "Why the statement is held (held only)." },
  { name: "flags", type: "text", description: 'Flags on the recipient, separated by "; " (empty when none).' },
  { name: "state_changed_at", type: "instant", description: "When the state last changed." },
  { name: "state_changed_by", type: "text", description: "Who changed it." },
  { name: "paid_amount_usd", type: "decimal", description: "Amount paid (paid only; equals payable)." },
  { name: "paid_on", type: "date", description: "Payment date as recorded (YYYY-MM-DD)." },
  { name: "payment_method", type: "text", description: "How it was paid." },
  { name: "payment_reference", type: "text", description: "The external payment reference." },
  { name: "closed_at", type: "instant", description: "When the statement closed (paid or carried)." },
];

const PAGE_SIZE = 2_000;

function bool(value: boolean): string {
  return value ? "true" : "false";
}

export function statementRow(s: PayoutStatement): ExportRow {
  return {
    batch_id: s.batchId,
    batch_status: s.batchStatus,
    window_start: s.windowStart,
    window_end: s.windowEnd,
    snapshot_id: s.snapshotId,
    snapshot_version: String(s.snapshotVersion),
    statement_id: s.id,
    recipient_player_id: String(s.recipientPlayerId),
    recipient_name: s.playerName,
    recipient_email: s.playerEmail,
    resolved: bool(s.resolved),
    in_snapshot: bool(s.inSnapshot),
    renewal_count: String(s.renewalCount),
    subscription_count: String(s.subscriptionCount),
    reversal_count: String(s.reversalCount),
    gross_attributed_usd: s.grossAttributedUsd,
    reversed_attributed_usd: s.reversedAttributedUsd,
    reversed_before_usd: s.reversedBeforeUsd,
    net_attributed_usd: s.netAttributedUsd,
    carried_in_usd: s.carriedInUsd,
    available_usd: s.availableUsd,
    payable_usd: s.payableUsd,
    carry_out_usd: s.carryOutUsd,
    min_payout_usd: s.minPayoutUsd,
    state: s.state,
    hold_reason: s.holdReason,
    flags: s.recipientFlags.length > 0 ? s.recipientFlags.join("; ") : null,
    state_changed_at: s.stateChangedAt,
    state_changed_by: s.stateChangedBy,
    paid_amount_usd: s.paidAmountUsd,
    paid_on: s.paidOn,
    payment_method: s.paymentMethod,
    payment_reference: s.paymentReference,
    closed_at: s.closedAt,
  };
}

/** Groups an async sequence into arrays of `size`, the unit the CSV writer reads. */
export async function* inPages<T, R>(
  items: AsyncIterable<T>,
  size: number,
  map: (item: T) => R[],
): AsyncGenerator<R[], void, undefined> {
  let page: R[] = [];
  for await (const item of items) {
    for (const row of map(item)) page.push(row);
    if (page.length >= size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

export const payoutsExport: ExportKindDefinition = {
  kind: "payouts",
  title: "Payout file",
  summary: "One row per recipient statement of a payout batch, by recipient id: what to pay, why, and what happened.",
  columns: PAYOUT_COLUMNS,
  needsBatch: true,
  // Its pages are several queries: read from one snapshot, a results import or a return recorded while it streams
  // cannot show some recipients paid and others not yet, nor change the batch's status part-way down the file.
  oneSnapshot: true,
  async *pages(db, target) {
    if (!target.batchId) throw new Error("the payout file needs a payout batch");
    const statements = iteratePayoutStatements(db, {
      gameId: target.gameId,
      batchId: target.batchId,
      pageSize: PAGE_SIZE,
    });
    yield* inPages(statements, PAGE_SIZE, (s) => [statementRow(s)]);
  },
};
