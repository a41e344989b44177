import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { PayoutStatementState } from "@/db/types";
import { isLatestVersion } from "./snapshots";

/**
 * Reads for the liability "as of" an instant (lib/payouts/liability.ts holds the rules): the payout records as they
 * stood then, and what the snapshots say was earned in windows that had ended by then. Every query filters by game.
 */

export type LiabilityBatch = { id: string; windowStart: Date; windowEnd: Date };

/** Batches prepared by the instant and not discarded by then. */
export async function listBatchesLiveAt(db: Db, params: { gameId: string; asOf: Date }): Promise<LiabilityBatch[]> {
  const rows = await db
    .selectFrom("payout_batch")
    .select(["id", "window_start", "window_end"])
    .where("game_id", "=", params.gameId)
    .where("prepared_at", "<=", params.asOf)
    .where((eb) => eb.or([eb("status", "<>", "discarded"), eb("discarded_at", ">", params.asOf)]))
    .execute();
  return rows.map((r) => ({ id: r.id, windowStart: r.window_start, windowEnd: r.window_end }));
}

export type LiabilityStatement = {
  statementId: string;
  batchId: string;
  /** The statement's state then: its last event at or before the instant. */
  state: PayoutStatementState;
  recipientPlayerId: string;
  playerName: string | null;
  playerEmail: string | null;
  netAttributedUsd: string;
  availableUsd: string;
  carryOutUsd: string;
  /** The batch was discarded later: its carried-in links are gone, so only its own net counts. */
  discardedLater: boolean;
};

/** Every statement of a batch live at the instant, in the state it was in then. */
export async function listStatementStatesAt(
  db: Db,
  params: { gameId: string; asOf: Date },
): Promise<LiabilityStatement[]> {
  const result = await sql<{
    statement_id: string;
    batch_id: string;
    state_after: PayoutStatementState;
    recipient_player_id: string;
    player_name: string | null;
    player_email: string | null;
    net_attributed_usd: string;
    available_usd: string;
    carry_out_usd: string;
    discarded_later: boolean;
  }>`
    select distinct on (e.statement_id) e.statement_id, st.batch_id, e.state_after,
      st.recipient_player_id::text as recipient_player_id, st.player_name, st.player_email,
      st.net_attributed_usd::text as net_attributed_usd, st.available_usd::text as available_usd,
      st.carry_out_usd::text as carry_out_usd, (b.status = 'discarded') as discarded_later
    from payout_statement_event e
    join payout_statement st on st.id = e.statement_id
    join payout_batch b on b.id = st.batch_id
    where e.game_id = ${params.gameId} and b.game_id = ${params.gameId} and e.at <= ${params.asOf}
      and b.prepared_at <= ${params.asOf} and (b.status <> 'discarded' or b.discarded_at > ${params.asOf})
    order by e.statement_id, e.at desc, e.id desc`.execute(db);
  return result.rows.map((r) => ({
    statementId: r.statement_id,
    batchId: r.batch_id,
    state: r.state_after,
    recipientPlayerId: r.recipient_player_id,
    playerName: r.player_name,
    playerEmail: r.player_email,
    netAttributedUsd: r.net_attributed_usd,
    availableUsd: r.available_usd,
    carryOutUsd: r.carry_out_usd,
    discardedLater: r.discarded_later,
  }));
}

/** Which statement took in each carried balance (from → to), for the statements given. */
export async function listCarryLinks(
  db: Db,
  params: { gameId: string; fromStatementIds: string[] },
): Promise<{ from: string; to: string }[]> {
  if (params.fromStatementIds.length === 0) return [];
  const rows = await db
    .selectFrom("payout_carry as c")
    .innerJoin("payout_statement as f", "f.id", "c.from_statement_id")
    .select(["c.from_statement_id", "c.to_statement_id"])
    .where("f.game_id", "=", params.gameId)
    .where("c.from_statement_id", "in", params.fromStatementIds)
    .execute();
  return rows.map((r) => ({ from: r.from_statement_id, to: r.to_statement_id }));
}

export type EndedWindowSnapshot = { snapshotId: string; version: number; windowStart: Date; windowEnd: Date };

/** The latest snapshot version of every window that had ended by the instant, earliest start first, shorter first. */
export async function listEndedWindowSnapshots(
  db: Db,
  params: { gameId: string; asOf: Date },
): Promise<EndedWindowSnapshot[]> {
  const rows = await db
    .selectFrom("snapshot as s")
    .select(["s.id", "s.version", "s.window_start", "s.window_end"])
    .where("s.game_id", "=", params.gameId)
    .where("s.window_end", "<=", params.asOf)
    .where(isLatestVersion("s"))
    .orderBy("s.window_start")
    .orderBy("s.window_end")
    .execute();
  return rows.map((r) => ({
    snapshotId: r.id,
    version: r.version,
    windowStart: r.window_start,
    windowEnd: r.window_end,
  }));
}

/** Net attributed per recipient over the snapshots given. */
export async function sumSnapshotNetByRecipient(
  db: Db,
  params: { gameId: string; snapshotIds: string[] },
): Promise<{ recipientPlayerId: string; playerName: string | null; playerEmail: string | null; netUsd: string }[]> {
  if (params.snapshotIds.length === 0) return [];
  const rows = await db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      sql<string>`r.recipient_player_id::text`.as("recipient_player_id"),
      sql<string | null>`max(r.player_name)`.as("player_name"),
      sql<string | null>`max(r.player_email)`.as("player_email"),
      sql<string>`sum(r.net_attributed_usd)::text`.as("net"),
    ])
    .where("s.game_id", "=", params.gameId)
    .where("r.snapshot_id", "in", params.snapshotIds)
    .groupBy("r.recipient_player_id")
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: r.recipient_player_id,
    playerName: r.player_name,
    playerEmail: r.player_email,
    netUsd: r.net,
  }));
}
