import "server-only";
import type { Db } from "@/db";
import { migrationState } from "@/db/migrate";
import { listAppliedMigrations } from "@/db/queries/health";

export type Readiness =
  | { ready: true }
  | { ready: false; reason: "database_unreachable" | "migrations_pending"; pending?: number };

/** How long readiness waits for the database, whose pool has no wait limit of its own, before it says no. */
export const READINESS_WAIT_MS = 5_000;

/**
 * Whether this instance can serve: the database answers and has every migration this build knows. A database that
 * has more (a newer build migrated it during a rolling deploy) is ready: migrations only ever add. A database that
 * does not answer within `waitMs` (a host that stopped answering, or every connection of the pool taken) is
 * unreachable: the probe answers rather than hang until the load balancer gives up on it.
 */
export async function checkReadiness(db: Db, { waitMs = READINESS_WAIT_MS } = {}): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<"gave up">((resolve) => {
    timer = setTimeout(() => resolve("gave up"), waitMs);
  });
  const asked = askOnce(db);
  let applied: string[] | "gave up";
  try {
    applied = await Promise.race([asked, gaveUp]);
  } catch {
    return { ready: false, reason: "database_unreachable" };
  } finally {
    clearTimeout(timer);
  }
  if (applied === "gave up") {
    // Its answer, or its failure, once it comes is of no use to anyone.
    asked.catch(() => {});
    return { ready: false, reason: "database_unreachable" };
  }
  const pending = migrationState(applied).pending.length;
  return pending === 0 ? { ready: true } : { ready: false, reason: "migrations_pending", pending };
}

/**
 * The applied migrations, asked once at a time for each database: probes that come while a question waits (the
 * database not answering, every connection taken) share it rather than each queue one more behind it.
 */
const asking = new WeakMap<Db, Promise<string[]>>();

function askOnce(db: Db): Promise<string[]> {
  const waiting = asking.get(db);
  if (waiting) return waiting;
  const asked = listAppliedMigrations(db).finally(() => asking.delete(db));
  asking.set(db, asked);
  return asked;
}
