import "server-only";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "@/db/types";

export type AuditEntry = {
  actor: { id: string; email: string } | null;
  action: string;
  gameId?: string | null;
  target?: string | null;
  idempotencyKey?: string | null;
  outcome: string;
  detail?: Record<string, unknown>;
};

/** Appends one line to the audit log (the table refuses updates and deletes). Never pass a secret in `detail`. */
export async function recordAudit(db: Kysely<Database> | Transaction<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      actor_id: entry.actor?.id ?? null,
      actor_email: entry.actor?.email ?? null,
      action: entry.action,
      game_id: entry.gameId ?? null,
      target: entry.target ?? null,
      idempotency_key: entry.idempotencyKey ?? null,
      outcome: entry.outcome,
      detail: JSON.stringify(entry.detail ?? {}),
    })
    .execute();
}
