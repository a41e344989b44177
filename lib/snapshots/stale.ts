import "server-only";
import type { Transaction } from "kysely";
import type { Db } from "@/db";
import type { Database } from "@/db/types";
import { parseInstant, type TimeWindow } from "@/lib/time";

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
  const ms = parseInstant(instant);
  if (ms === null) throw new Error(`markWindowStale: not an instant: ${instant}`);
  return new Date(ms);
}

/**
 * Marks the snapshots of the window holding `instant` stale and drops cached drill-down detail of the subscription
 * and period named in `detail`. Returns the windows of published snapshots now stale (one entry per window); the
 * mark also applies to windows snapshotted later from data read before it.
 */
export async function markWindowStale(
  db: Db | Transaction<Database>,
  gameId: string,
  instant: Date | string | number,
  reason: string,
  detail: StaleDetail = {},
): Promise<TimeWindow[]> {
  const at = toDate(instant);
  await db
    .insertInto("snapshot_stale_mark")
    .values({ game_id: gameId, instant: at, reason: reason.slice(0, 500), detail: JSON.stringify(detail) })
    .execute();
  if (detail.subscriptionId) {
    const now = new Date();
    await db
      .updateTable("service_subscription_attribution")
      .set({ invalidated_at: now })
      .where("game_id", "=", gameId)
      .where("subscription_id", "=", detail.subscriptionId)
      .where("invalidated_at", "is", null)
      .execute();
    await db
      .updateTable("service_period_detail")
      .set({ invalidated_at: now })
      .where("game_id", "=", gameId)
      .where("subscription_id", "=", detail.subscriptionId)
      .where("invalidated_at", "is", null)
      .execute();
  }
  if (detail.periodId !== undefined) {
    await db
      .updateTable("service_period_detail")
      .set({ invalidated_at: new Date() })
      .where("game_id", "=", gameId)
      .where("period_id", "=", String(detail.periodId))
      .where("invalidated_at", "is", null)
      .execute();
  }
  const windows = await db
    .selectFrom("snapshot")
    .select(["window_start", "window_end"])
    .distinct()
    .where("game_id", "=", gameId)
    .where("window_start", "<=", at)
    .where("window_end", ">", at)
    .execute();
  return windows.map((w) => ({ startMs: w.window_start.getTime(), endMs: w.window_end.getTime() }));
}
