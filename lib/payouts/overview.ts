import "server-only";
import type { Db } from "@/db";
import { listLiveBatchesByWindow } from "@/db/queries/payouts";
import {
  listRecentPulls,
  listSnapshotWindows,
  type SnapshotHeader,
  type SnapshotPullView,
} from "@/db/queries/snapshots";
import { summarizePullProgress } from "@/lib/snapshots/progress";
import { addMonths, monthKeyOf, monthWindow, type TimeWindow } from "@/lib/time";

/**
 * open: the snapshot was pulled while its window was still open and the window still is; partial: the window has
 * ended since, so the snapshot lacks its last part until it is pulled again.
 */
export type WindowSnapshotState = "none" | "pulling" | "complete" | "open" | "partial" | "stale" | "drift" | "failed";

export type WindowOverviewRow = {
  window: TimeWindow;
  isMonth: boolean;
  state: WindowSnapshotState;
  snapshot: (SnapshotHeader & { versions: number }) | null;
  pull: SnapshotPullView | null;
  /** 0..100 while pulling, as every view of the pull shows it (summarizePullProgress). */
  progressPercent: number | null;
  /** Its statements held stay owed, though the batch reads paid once nothing approved is left unpaid. */
  batch: { id: string; status: string; snapshotId: string; held: number } | null;
};

const key = (w: TimeWindow) => `${w.startMs}|${w.endMs}`;

/**
 * The windows overview of a game: the last `months` calendar months (newest first) and every other window that has a
 * snapshot, each with its snapshot state, the latest version's totals, a pull under way and the payout batch.
 */
export async function listWindowOverview(
  db: Db,
  params: { gameId: string; months?: number; now?: number },
): Promise<WindowOverviewRow[]> {
  const [snapshots, pulls, batches] = await Promise.all([
    listSnapshotWindows(db, { gameId: params.gameId, limit: 200 }),
    listRecentPulls(db, { gameId: params.gameId, limit: 50 }),
    listLiveBatchesByWindow(db, params.gameId),
  ]);
  const byWindow = new Map(snapshots.map((s) => [key(s.window), s]));
  const windows = new Map<string, { window: TimeWindow; isMonth: boolean }>();
  const now = params.now ?? Date.now();
  const current = monthKeyOf(now);
  for (let i = 0; i < (params.months ?? 12); i += 1) {
    const w = monthWindow(addMonths(current, -i));
    windows.set(key(w), { window: w, isMonth: true });
  }
  for (const s of snapshots) {
    if (windows.has(key(s.window))) continue;
    const month = monthWindow(monthKeyOf(s.window.startMs));
    windows.set(key(s.window), {
      window: s.window,
      isMonth: month.startMs === s.window.startMs && month.endMs === s.window.endMs,
    });
  }
  for (const p of pulls) {
    if (!windows.has(key(p.window)) && (p.status === "queued" || p.status === "running" || p.status === "retrying")) {
      windows.set(key(p.window), { window: p.window, isMonth: false });
    }
  }
  const rows: WindowOverviewRow[] = [];
  for (const { window, isMonth } of windows.values()) {
    const snapshot = byWindow.get(key(window)) ?? null;
    const pull =
      pulls.find(
        (p) =>
          key(p.window) === key(window) && (p.status === "queued" || p.status === "running" || p.status === "retrying"),
      ) ?? null;
    const failed =
      pulls.find(
        (p) =>
          key(p.window) === key(window) &&
          p.status === "failed" &&
          (!snapshot || (p.finishedAt && p.finishedAt > snapshot.publishedAt)),
      ) ?? null;
    let state: WindowSnapshotState = "none";
    if (snapshot) state = snapshot.drift.status === "drift" ? "drift" : snapshot.stale ? "stale" : "complete";
    if (state === "complete" && snapshot && !snapshot.windowClosed) state = window.endMs > now ? "open" : "partial";
    if (failed && !pull) state = snapshot ? state : "failed";
    if (pull) state = "pulling";
    const progressPercent = pull ? summarizePullProgress(pull).percent : null;
    rows.push({
      window,
      isMonth,
      state,
      snapshot,
      pull: pull ?? failed,
      progressPercent,
      batch: batches.get(key(window)) ?? null,
    });
  }
  rows.sort((a, b) => b.window.startMs - a.window.startMs || b.window.endMs - a.window.endMs);
  return rows;
}
