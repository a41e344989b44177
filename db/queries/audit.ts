import "server-only";
import type { Db } from "@/db";

export type AuditRow = {
  id: string;
  at: Date;
  actorEmail: string | null;
  action: string;
  gameId: string | null;
  target: string | null;
  idempotencyKey: string | null;
  outcome: string;
};

export async function listAuditEntries(db: Db, options: { limit: number; gameId?: string }): Promise<AuditRow[]> {
  let query = db
    .selectFrom("audit_log")
    .select(["id", "at", "actor_email", "action", "game_id", "target", "idempotency_key", "outcome"])
    .orderBy("id", "desc")
    .limit(options.limit);
  if (options.gameId) query = query.where("game_id", "=", options.gameId);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    actorEmail: r.actor_email,
    action: r.action,
    gameId: r.game_id,
    target: r.target,
    idempotencyKey: r.idempotency_key,
    outcome: r.outcome,
  }));
}
