import "server-only";
import type { DbOrTrx } from "@/db";
import { statementsOfBatch } from "./batch-statements";

/**
 * Reads of the exports that are not streamed cells: what an export is about (batch, snapshot) and the names the
 * ledger entries leave out.
 */

/** Name and email of each recipient of a batch, from its statements, by player id. */
export async function batchRecipientNames(db: DbOrTrx, params: { gameId: string; batchId: string }) {
  const rows = await statementsOfBatch(db, params)
    .select(["st.recipient_player_id", "st.player_name", "st.player_email"])
    .execute();
  return new Map(rows.map((s) => [Number(s.recipient_player_id), { name: s.player_name, email: s.player_email }]));
}

export type RecipientNames = Awaited<ReturnType<typeof batchRecipientNames>>;

export async function findExportBatch(
  db: DbOrTrx,
  params: { batchId: string; gameId?: string },
): Promise<{ id: string; gameId: string; snapshotId: string; status: string } | null> {
  let query = db
    .selectFrom("payout_batch")
    .select(["id", "game_id", "snapshot_id", "status"])
    .where("id", "=", params.batchId);
  if (params.gameId) query = query.where("game_id", "=", params.gameId);
  const row = await query.executeTakeFirst();
  return row ? { id: row.id, gameId: row.game_id, snapshotId: row.snapshot_id, status: row.status } : null;
}

export async function findExportSnapshot(
  db: DbOrTrx,
  params: { snapshotId: string; gameId?: string },
): Promise<{ id: string; gameId: string; version: number; windowStart: Date; windowEnd: Date } | null> {
  let query = db
    .selectFrom("snapshot")
    .select(["id", "game_id", "version", "window_start", "window_end"])
    .where("id", "=", params.snapshotId);
  if (params.gameId) query = query.where("game_id", "=", params.gameId);
  const row = await query.executeTakeFirst();
  return row
    ? {
        id: row.id,
        gameId: row.game_id,
        version: row.version,
        windowStart: row.window_start,
        windowEnd: row.window_end,
      }
    : null;
}

/** The batches (not discarded) built on a snapshot. */
export async function listSnapshotBatchIds(db: DbOrTrx, params: { snapshotId: string; gameId: string }) {
  const rows = await db
    .selectFrom("payout_batch")
    .select("id")
    .where("snapshot_id", "=", params.snapshotId)
    .where("game_id", "=", params.gameId)
    .where("status", "<>", "discarded")
    .execute();
  return rows.map((r) => r.id);
}

export async function getExportBatchStatus(db: DbOrTrx, params: { batchId: string }): Promise<string> {
  const row = await db
    .selectFrom("payout_batch")
    .select("status")
    .where("id", "=", params.batchId)
    .executeTakeFirstOrThrow();
  return row.status;
}
