import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import { windowOf } from "./time-window";

/**
 * Stale marks for many changes at once (a burst of webhook events). A snapshot is stale when a mark inside its window
 * is newer than its fetch_started_at (db/queries/snapshots.ts), so one mark per window and burst says all that a
 * mark per event would. Every burst marks each window it touches, even one already marked since its latest version:
 * the stale flag of a batch is named after the window's latest mark (lib/payouts/flags.ts), so an override of an
 * earlier change does not cover this one. A change in no window that has a snapshot or a running pull is marked on its
 * own (as lib/snapshots/stale.ts does), for a window snapshotted later from data read before it.
 */

export type StaleChange = {
  instant: Date;
  reason: string;
  detail: Record<string, unknown>;
  subscriptionId: string | null;
};

export type WindowSpan = { startMs: number; endMs: number };

export type KnownWindow = { window_start: Date; window_end: Date };

/**
 * The windows holding any of `instants` that have a published snapshot or a pull queued or reading now: a pull may
 * have begun reading before the change, or begin reading an open window only up to a minute before it starts, so that
 * its first version is stale once published.
 */
export async function listWindowsHolding(db: DbOrTrx, gameId: string, instants: Date[]): Promise<KnownWindow[]> {
  const { rows } = await sql<KnownWindow>`
    select k.window_start, k.window_end
      from (select window_start, window_end from snapshot where game_id = ${gameId}
            union
            select window_start, window_end from snapshot_pull
             where game_id = ${gameId} and status in ('queued', 'running', 'retrying')) as k
     where exists (select 1 from unnest(${instants.map((at) => at.toISOString())}::timestamptz[]) as i(at)
                    where i.at >= k.window_start and i.at < k.window_end)`.execute(db);
  return rows;
}

function within(at: number, w: KnownWindow): boolean {
  return at >= w.window_start.getTime() && at < w.window_end.getTime();
}

/**
 * Marks what `changes` (all of one game) make stale, drops the cached drill-down detail of their subscriptions, and
 * returns, for each change in order, the windows holding it that have a published snapshot or a pull queued or reading
 * now (which may read up to before the change, so that its first version would be stale too).
 */
export async function markChangesStale(
  db: DbOrTrx,
  gameId: string,
  changes: StaleChange[],
): Promise<{ windows: WindowSpan[][]; marksWritten: number }> {
  if (changes.length === 0) return { windows: [], marksWritten: 0 };
  const known = await listWindowsHolding(
    db,
    gameId,
    changes.map((c) => c.instant),
  );

  const marks: { game_id: string; instant: Date; reason: string; detail: string }[] = [];
  for (const w of known) {
    const inside = changes.filter((c) => within(c.instant.getTime(), w));
    const first = inside.reduce((a, b) => (b.instant < a.instant ? b : a));
    // An event may hold two instants of one window (a refund placed by its event's time just after midnight): it is
    // one change of it.
    const count = new Set(inside.map((c) => c.detail.eventId ?? c)).size;
    const reason = count > 1 ? `${first.reason} and ${count - 1} more` : first.reason;
    marks.push({
      game_id: gameId,
      instant: first.instant,
      reason: reason.slice(0, 500),
      detail: JSON.stringify({ ...first.detail, changes: count }),
    });
  }
  const loose = new Map<number, StaleChange>();
  for (const c of changes) {
    const at = c.instant.getTime();
    if (!known.some((w) => within(at, w)) && !loose.has(at)) loose.set(at, c);
  }
  for (const c of loose.values()) {
    marks.push({
      game_id: gameId,
      instant: c.instant,
      reason: c.reason.slice(0, 500),
      detail: JSON.stringify(c.detail),
    });
  }
  if (marks.length > 0) await db.insertInto("snapshot_stale_mark").values(marks).execute();

  const subscriptions = [...new Set(changes.flatMap((c) => (c.subscriptionId ? [c.subscriptionId] : [])))];
  if (subscriptions.length > 0) {
    const now = new Date();
    // Both caches of service details are read again for these subscriptions.
    for (const cache of ["service_subscription_attribution", "service_period_detail"] as const) {
      await db
        .updateTable(cache)
        .set({ invalidated_at: now })
        .where("game_id", "=", gameId)
        .where("subscription_id", "in", subscriptions)
        .where("invalidated_at", "is", null)
        .execute();
    }
  }

  return {
    marksWritten: marks.length,
    windows: changes.map((c) => known.filter((w) => within(c.instant.getTime(), w)).map(windowOf)),
  };
}
