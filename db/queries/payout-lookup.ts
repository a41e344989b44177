import "server-only";
import type { DbOrTrx } from "@/db";

/**
 * Finds the game of a payout batch or snapshot from its id alone, for the command line, where no game is selected.
 * Every other read of payouts takes the game and filters by it.
 */

export async function findBatchGame(db: DbOrTrx, batchId: string): Promise<string | null> {
  const row = await db.selectFrom("payout_batch").select("game_id").where("id", "=", batchId).executeTakeFirst();
  return row?.game_id ?? null;
}

export async function findSnapshotGame(db: DbOrTrx, snapshotId: string): Promise<string | null> {
  const row = await db.selectFrom("snapshot").select("game_id").where("id", "=", snapshotId).executeTakeFirst();
  return row?.game_id ?? null;
}
