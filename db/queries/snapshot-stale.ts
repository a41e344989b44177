import "server-only";
import type { DbOrTrx } from "@/db";
import { windowOf } from "./time-window";

/** A mark that something changed at `instant` (read beside the snapshots: db/queries/snapshots.ts). */
export async function insertStaleMark(
  db: DbOrTrx,
  params: { gameId: string; instant: Date; reason: string; detail: Record<string, unknown> },
): Promise<void> {
  await db
    .insertInto("snapshot_stale_mark")
    .values({
      game_id: params.gameId,
      instant: params.instant,
      reason: params.reason,
      detail: JSON.stringify(params.detail),
    })
    .execute();
}

/** The windows of the game's published snapshots that hold `at`, one entry per window. */
export async function listSnapshotWindowsHolding(db: DbOrTrx, params: { gameId: string; at: Date }) {
  const windows = await db
    .selectFrom("snapshot")
    .select(["window_start", "window_end"])
    .distinct()
    .where("game_id", "=", params.gameId)
    .where("window_start", "<=", params.at)
    .where("window_end", ">", params.at)
    .execute();
  return windows.map(windowOf);
}
