import "server-only";
import type { Db } from "@/db";
import { MIGRATIONS } from "@/db/migrations";
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
  const done = new Set(applied);
  const pending = Object.keys(MIGRATIONS).filter((name) => !done.has(name)).length;
  return pending === 0 ? { ready: true } : { ready: false, reason: "migrations_pending", pending };
}
