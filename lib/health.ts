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
 * How long probes share a question still waiting. One sent on a connection whose peer vanished (a failover, a pooler
 * restarted) may wait for the operating system to give up on it, many minutes; probes after this ask anew, so the
 * instance is ready again as soon as the database answers a fresh connection.
 */
export const READINESS_SHARE_MS = 30_000;

/**
 * Whether this instance can serve: the database answers and has every migration this build knows. A database that
 * has more (a newer build migrated it during a rolling deploy) is ready: migrations only ever add. A database that
 * does not answer within `waitMs` (a host that stopped answering, or every connection of the pool taken) is
 * unreachable: the probe answers rather than hang until the load balancer gives up on it.
 */
export async function checkReadiness(
  db: Db,
  { waitMs = READINESS_WAIT_MS, shareMs = READINESS_SHARE_MS } = {},
): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<"gave up">((resolve) => {
    timer = setTimeout(() => resolve("gave up"), waitMs);
  });
  const asked = askOnce(db, shareMs);
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
 * database not answering, every connection taken) share it rather than each queue one more behind it, until it has
 * waited `shareMs`; then one more is asked, and shared in its turn.
 */
const asking = new WeakMap<Db, { asked: Promise<string[]>; since: number }>();

function askOnce(db: Db, shareMs: number): Promise<string[]> {
  const waiting = asking.get(db);
  if (waiting && Date.now() - waiting.since < shareMs) return waiting.asked;
  const question = {
    since: Date.now(),
    asked: listAppliedMigrations(db).finally(() => {
      if (asking.get(db) === question) asking.delete(db);
    }),
  };
  asking.set(db, question);
  return question.asked;
}
