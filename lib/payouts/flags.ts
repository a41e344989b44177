import "server-only";
import type { Db } from "@/db";
import { getLatestSnapshot, getSnapshot, type SnapshotHeader } from "@/db/queries/snapshots";
import { FLAG_INFO, type PayoutFlag, type WindowFlag } from "./flag-info";

export type ActiveFlag = { flag: PayoutFlag; label: string; detail: string };

/**
 * The flags of a whole window for one snapshot version, evaluated now: staleness and newer versions appear after a
 * batch is prepared, so these are never stored.
 */
export async function windowFlagsOf(db: Db, snapshot: SnapshotHeader): Promise<ActiveFlag[]> {
  const flags: ActiveFlag[] = [];
  const add = (flag: WindowFlag, detail: string) => flags.push({ flag, label: FLAG_INFO[flag].label, detail });
  const notFound = snapshot.totals.unattributedReasons.spend_order_not_found ?? 0;
  if (notFound > 0) add("spend_order_not_found", `${notFound} renewal${notFound === 1 ? "" : "s"} with spend_order_not_found`);
  if (snapshot.drift.status === "drift") add("snapshot_drift", `${snapshot.drift.count} difference${snapshot.drift.count === 1 ? "" : "s"} from the previous version`);
  if (snapshot.stale) add("snapshot_stale", `${snapshot.stale.reason} (${snapshot.stale.marks} change${snapshot.stale.marks === 1 ? "" : "s"})`);
  if (!snapshot.windowClosed) add("window_open", "read before the window's end");
  const latest = await getLatestSnapshot(db, { gameId: snapshot.gameId, window: snapshot.window });
  if (latest && latest.id !== snapshot.id) add("newer_snapshot", `version ${latest.version} is newer than version ${snapshot.version}`);
  return flags;
}

export async function windowFlagsOfSnapshot(db: Db, gameId: string, snapshotId: string): Promise<ActiveFlag[]> {
  const snapshot = await getSnapshot(db, { gameId, snapshotId });
  return snapshot ? windowFlagsOf(db, snapshot) : [];
}

export type FlagOverride = {
  flag: string;
  recipientPlayerId: number | null;
  reason: string;
  actorEmail: string;
  at: Date;
};

export async function listFlagOverrides(db: Db, params: { gameId: string; batchId: string }): Promise<FlagOverride[]> {
  const rows = await db
    .selectFrom("payout_flag_override")
    .select(["flag", "recipient_player_id", "reason", "actor_email", "at"])
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId)
    .orderBy("at")
    .execute();
  return rows.map((r) => ({
    flag: r.flag,
    recipientPlayerId: r.recipient_player_id === null ? null : Number(r.recipient_player_id),
    reason: r.reason,
    actorEmail: r.actor_email,
    at: r.at,
  }));
}

/** The flags still blocking one statement: window flags and its own, minus those overridden. */
export function openFlagsFor(
  recipientPlayerId: number,
  recipientFlags: readonly string[],
  windowFlags: readonly ActiveFlag[],
  overrides: readonly FlagOverride[],
): PayoutFlag[] {
  const overridden = new Set(
    overrides.map((o) => `${o.recipientPlayerId === null ? "*" : o.recipientPlayerId}:${o.flag}`),
  );
  const open: PayoutFlag[] = [];
  for (const w of windowFlags) if (!overridden.has(`*:${w.flag}`)) open.push(w.flag);
  for (const f of recipientFlags) {
    if (!overridden.has(`${recipientPlayerId}:${f}`)) open.push(f as PayoutFlag);
  }
  return open;
}
