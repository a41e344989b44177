import "server-only";
import { type RawBuilder, sql } from "kysely";
import { snapshotNetInCents } from "./snapshot-columns";

// A reversal the service knows only from its period row is reported wholly in the window of the period's latest
// refund: refunded again later, the part an earlier window's batch deducted is reported again in the later window.
// What a statement leaves out of it, read for a snapshot recipient aliased `r` by every caller.

/**
 * Of the recipient's (`r`) reversals known wholly from their period row, the part approved batches of other windows
 * deducted already: for each period, the most any of them was reported (each such report is the period's whole
 * reversal to date, and each batch deducted only what the ones approved before it had not), up to this report. Only
 * batches approved by `approvedBy`, when given (the liability as it stood then). Nothing is read for a recipient
 * without reversals.
 */
export function reversalDeductedBefore(approvedBy: Date | null): RawBuilder<string> {
  const approved = approvedBy === null ? sql`true` : sql`b.approved_at <= ${approvedBy}`;
  return sql<string>`case when r.reversal_count = 0 then 0 else coalesce((
    select sum(least(v.reversed_attributed_usd, d.before))
      from snapshot_reversal v
      join snapshot s on s.id = v.snapshot_id
      cross join lateral (select max(p.reversed_attributed_usd) as before from payout_batch b
        join snapshot_reversal p on p.snapshot_id = b.snapshot_id and p.period_id = v.period_id
        where b.game_id = s.game_id and b.status in ('approved', 'paid') and ${approved}
          and (b.window_start <> s.window_start or b.window_end <> s.window_end)
          and p.recipient_player_id = v.recipient_player_id and p.reversal_basis = 'period_row'
          and p.event_count = 1 and p.reversed_attributed_usd > 0) d
     where v.snapshot_id = r.snapshot_id and v.recipient_player_id = r.recipient_player_id
       and v.reversal_basis = 'period_row' and v.event_count = 1 and v.reversed_attributed_usd > 0
       and d.before is not null), 0) end`;
}

/**
 * A snapshot recipient's (`r`) net as a statement prepared from it takes it (lib/payouts/build-statements.ts): its
 * net in cents, with what batches of other windows (approved by `approvedBy`, when given) deducted already of its
 * reversals added back, up to the reversals the snapshot reports (each rounded to the cent first).
 */
export function statementNetOfSnapshotRecipient(approvedBy: Date | null): RawBuilder<string> {
  const before = sql`round(${reversalDeductedBefore(approvedBy)}, 2)`;
  return sql<string>`(${snapshotNetInCents("r")} + greatest(0, least(${before}, round(r.reversed_attributed_usd, 2))))`;
}
