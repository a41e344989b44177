import "server-only";
import type { DbOrTrx } from "@/db";

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
