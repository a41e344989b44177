import "server-only";
import type { DbOrTrx } from "@/db";
import { invalidatePeriodDetail, invalidateSubscriptionDetail } from "@/db/queries/service-detail";
import { insertStaleMark } from "@/db/queries/snapshot-stale";
import { listWindowsHolding } from "@/db/queries/stale-marks";
import { windowOf } from "@/db/queries/time-window";
import { parseServiceInstant, type TimeWindow } from "@/lib/time";

/**
 * Staleness: the service told us (a webhook, a refund made here) that something changed at `instant`. Every snapshot
 * whose window holds that instant and whose pull began reading before the mark no longer matches the service, until
 * a newer version is taken. Snapshots are immutable, so staleness is a mark beside them, evaluated when read
 * (db/queries/snapshots.ts: a snapshot is stale when a mark inside its window is newer than its fetch_started_at).
 *
 * "a renewal belongs to the window holding its paid_at; a reversal to the window holding its refunded_at"
 */
export type StaleDetail = {
  subscriptionId?: string;
  periodId?: number;
  /** Anything else worth showing next to the flag (event id, refund attempt); never a secret or an email. */
  [key: string]: unknown;
};

function toDate(instant: Date | string | number): Date {
  if (instant instanceof Date) return instant;
  if (typeof instant === "number") return new Date(instant);
  const ms = parseServiceInstant(instant);
  if (ms === null) throw new Error(`markWindowStale: not an instant: ${instant}`);
  return new Date(ms);
}

/**
 * Marks the snapshots of the window holding `instant` stale and drops cached drill-down detail of the subscription
 * and period named in `detail`. Returns the windows of published snapshots now stale and of pulls reading now, which
 * may have begun before the change (one entry per window); the mark also applies to windows snapshotted later from
 * data read before it.
 */
export async function markWindowStale(
  db: DbOrTrx,
  gameId: string,
  instant: Date | string | number,
  reason: string,
  detail: StaleDetail = {},
): Promise<TimeWindow[]> {
  const at = toDate(instant);
  await insertStaleMark(db, { gameId, instant: at, reason: reason.slice(0, 500), detail });
  if (detail.subscriptionId) {
    await invalidateSubscriptionDetail(db, { gameId, subscriptionId: detail.subscriptionId, at: new Date() });
  }
  if (detail.periodId !== undefined) {
    await invalidatePeriodDetail(db, { gameId, periodId: detail.periodId, at: new Date() });
  }
  return (await listWindowsHolding(db, gameId, [at])).map(windowOf);
}
