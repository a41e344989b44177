import "server-only";
import { sql, type Updateable } from "kysely";
import type { DbOrTrx } from "@/db";
import type { SnapshotPullTable } from "@/db/types";
import type { Actor } from "@/core/actor";
import type { TimeWindow } from "@/core/time";

/** Writes of snapshot pulls (the request, its attempts, its progress); the views are in db/queries/snapshots.ts. */

const ACTIVE = ["queued", "running", "retrying"] as const;

export async function findActivePull(db: DbOrTrx, params: { gameId: string; window: TimeWindow }) {
  return db
    .selectFrom("snapshot_pull")
    .select(["id", "status", "heartbeat_at", "updated_at"])
    .where("game_id", "=", params.gameId)
    .where("window_start", "=", new Date(params.window.startMs))
    .where("window_end", "=", new Date(params.window.endMs))
    .where("status", "in", ACTIVE)
    .executeTakeFirst();
}

/** Inserts a queued pull; a second active pull of the same window is refused by a unique index (23505). */
export async function insertQueuedPull(
  db: DbOrTrx,
  params: {
    id: string;
    gameId: string;
    window: TimeWindow;
    via: string;
    requestedBy: Actor | null;
  },
): Promise<void> {
  await db
    .insertInto("snapshot_pull")
    .values({
      id: params.id,
      game_id: params.gameId,
      window_start: new Date(params.window.startMs),
      window_end: new Date(params.window.endMs),
      status: "queued",
      via: params.via,
      requested_by_id: params.requestedBy?.id ?? null,
      requested_by_email: params.requestedBy?.email ?? null,
    })
    .execute();
}

export async function getPullRow(db: DbOrTrx, pullId: string) {
  return db.selectFrom("snapshot_pull").selectAll().where("id", "=", pullId).executeTakeFirst();
}

export async function getPullStatus(db: DbOrTrx, pullId: string) {
  return db
    .selectFrom("snapshot_pull")
    .select(["status", "snapshot_id", "error_code", "error_message"])
    .where("id", "=", pullId)
    .executeTakeFirstOrThrow();
}

/**
 * Sets columns of a pull. `onlyWhen` narrows it: "running" writes only to a pull still running (heartbeats,
 * progress), "unfinished" never touches a complete one.
 */
export async function updatePull(
  db: DbOrTrx,
  pullId: string,
  values: Updateable<SnapshotPullTable>,
  onlyWhen?: "running" | "unfinished",
): Promise<void> {
  let query = db.updateTable("snapshot_pull").set(values).where("id", "=", pullId);
  if (onlyWhen === "running") query = query.where("status", "=", "running");
  if (onlyWhen === "unfinished") query = query.where("status", "!=", "complete");
  await query.execute();
}

/**
 * A running pull whose worker stopped (or whose window lock was lost) before it was done: queued again for the job
 * pg-boss retries, the attempt not counted (a stop is no failure of the service's).
 */
export async function handBackPull(
  db: DbOrTrx,
  pullId: string,
  why = "its worker stopped; another worker takes it up",
): Promise<void> {
  await db
    .updateTable("snapshot_pull")
    .set((eb) => ({
      status: "queued",
      attempts: sql<number>`greatest(${eb.ref("attempts")} - 1, 0)`,
      phase: `handed back: ${why}`,
      error_code: null,
      error_message: null,
      eta_at: null,
      updated_at: sql<Date>`clock_timestamp()`,
    }))
    .where("id", "=", pullId)
    .where("status", "=", "running")
    .execute();
}

/**
 * Marks an attempt of a pull still active (queued, running or retrying) started at the database's clock, resetting its
 * progress: the number of attempts so far and that instant, or null when the pull has finished (complete or failed)
 * since it was read, which no attempt may revive.
 */
export async function startPullAttempt(
  db: DbOrTrx,
  params: { pullId: string; jobId: string | null },
): Promise<{ attempts: number; startedAt: Date } | null> {
  const now = sql<Date>`clock_timestamp()`;
  const row = await db
    .updateTable("snapshot_pull")
    .set((eb) => ({
      status: "running",
      attempts: eb("attempts", "+", 1),
      started_at: now,
      heartbeat_at: now,
      job_id: params.jobId,
      phase: "starting",
      pages_fetched: 0,
      recipients_fetched: 0,
      lines_fetched: 0,
      reversals_fetched: 0,
      requests: 0,
      rate_limited: 0,
      retries: 0,
      sub_windows: 0,
      error_code: null,
      error_message: null,
      eta_at: null,
      updated_at: now,
    }))
    .where("id", "=", params.pullId)
    .where("status", "in", ACTIVE)
    .returning(["attempts", "started_at"])
    .executeTakeFirst();
  if (!row?.started_at) return null;
  return { attempts: row.attempts, startedAt: row.started_at };
}

/** Active pulls with no sign of life (heartbeat, or else last update) since `before`. */
export async function listQuietActivePulls(db: DbOrTrx, params: { before: Date }) {
  return db
    .selectFrom("snapshot_pull")
    .select(["id", "game_id", "window_start", "window_end", "heartbeat_at", "updated_at", "status", "job_id"])
    .where("status", "in", ACTIVE)
    .where((eb) => eb(eb.fn.coalesce("heartbeat_at", "updated_at"), "<", params.before))
    .execute();
}
