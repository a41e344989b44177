import "server-only";
import type { DbOrTrx } from "@/db";
import { insertAuditLine } from "@/db/queries/audit";
import type { Actor, Via } from "@/core/actor";

export type AuditEntry = {
  actor: Actor | null;
  /** Through what the change came; the web app unless said. */
  via?: Via;
  action: string;
  gameId?: string | null;
  target?: string | null;
  idempotencyKey?: string | null;
  outcome: string;
  detail?: Record<string, unknown>;
};

/**
 * Appends one line to the audit log (the table refuses updates and deletes). The domain function that changes state
 * calls it inside its own transaction. Never pass a secret in `detail`.
 */
export async function recordAudit(db: DbOrTrx, entry: AuditEntry): Promise<void> {
  await insertAuditLine(db, {
    actorId: entry.actor?.id ?? null,
    actorEmail: entry.actor?.email ?? null,
    via: entry.via ?? "web",
    action: entry.action,
    gameId: entry.gameId ?? null,
    target: entry.target ?? null,
    idempotencyKey: entry.idempotencyKey ?? null,
    outcome: entry.outcome,
    detail: entry.detail ?? {},
  });
}
