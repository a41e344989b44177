import "server-only";
import type { Db } from "@/db";
import { readSnapshotSummary } from "@/db/queries/snapshots";
import { formatInstant } from "@/lib/time";
import type { PullSummary } from "./pull-common";

/** The summary of a published snapshot (what the CLI prints). */
export async function summarizeSnapshot(db: Db, snapshotId: string): Promise<PullSummary> {
  const { snapshot: s, parts } = await readSnapshotSummary(db, snapshotId);
  return {
    pullId: s.pull_id,
    snapshotId: s.id,
    version: s.version,
    gameId: s.game_id,
    window: { start: formatInstant(s.window_start), end: formatInstant(s.window_end) },
    windowClosed: s.window_closed,
    builtFrom: s.built_from,
    totals: {
      renewalsSettled: s.renewals_settled,
      settledGrossUsd: s.settled_gross_usd,
      grossAttributedUsd: s.gross_attributed_usd,
      reversedAttributedUsd: s.reversed_attributed_usd,
      netAttributedUsd: s.net_attributed_usd,
      refundEventsInWindow: s.refund_events_in_window,
      recipientCount: s.recipient_count,
    },
    recipients: s.recipient_count,
    lines: s.line_count,
    reversals: s.reversal_count,
    refundEvents: s.refund_event_count,
    pages: s.page_count,
    requests: s.request_count,
    subWindows: parts.map((p) => ({
      scope: p.scope,
      recipientPlayerId: p.recipient_player_id === null ? null : Number(p.recipient_player_id),
      start: formatInstant(p.window_start),
      end: formatInstant(p.window_end),
      reason: p.reason,
    })),
    rateLimited: s.rate_limited,
    retries: s.retries,
    durationMs: s.duration_ms,
    drift: { status: s.drift_status, differences: s.drift_count, comparedTo: s.compared_to_snapshot_id },
  };
}
