import "server-only";
import type { Db } from "@/db";
import { migrationState } from "@/db/migrate";
import { listAppliedMigrations } from "@/db/queries/health";

export type Readiness =
  | { ready: true }
  | { ready: false; reason: "database_unreachable" | "migrations_pending"; pending?: number };

/**
 * Whether this instance can serve: the database answers and has every migration this build knows. A database that
 * has more (a newer build migrated it during a rolling deploy) is ready: migrations only ever add.
 */
export async function checkReadiness(db: Db): Promise<Readiness> {
  let applied: string[];
  try {
    applied = await listAppliedMigrations(db);
  } catch {
    return { ready: false, reason: "database_unreachable" };
  }
  const pending = migrationState(applied).pending.length;
  return pending === 0 ? { ready: true } : { ready: false, reason: "migrations_pending", pending };
}
