import "server-only";
import { CompiledQuery } from "kysely";
import type PgBoss from "pg-boss";
import type { DbOrTrx } from "@/db";

type PeriodKey = { job: string; periodStart: Date };

/** Claims a scheduled job's period; false when another process claimed it first. */
export async function claimScheduledRun(db: DbOrTrx, key: PeriodKey): Promise<boolean> {
  const row = await db
    .insertInto("scheduled_run")
    .values({ job: key.job, period_start: key.periodStart, job_id: null, started_at: null, finished_at: null })
    .onConflict((oc) => oc.columns(["job", "period_start"]).doNothing())
    .returning("job")
    .executeTakeFirst();
  return row !== undefined;
}

/** The queued job of a claimed period (none when the queue refused it: a run of the job was still waiting). */
export async function setScheduledRunJob(db: DbOrTrx, key: PeriodKey & { jobId: string | null }): Promise<void> {
  await db
    .updateTable("scheduled_run")
    .set({ job_id: key.jobId })
    .where("job", "=", key.job)
    .where("period_start", "=", key.periodStart)
    .execute();
}

/** A scheduled run's job started (a retry counts again) or finished. */
export async function noteScheduledRun(
  db: DbOrTrx,
  run: { job: string; jobId: string; event: "started" | "finished" },
): Promise<void> {
  await db
    .updateTable("scheduled_run")
    .set((eb) =>
      run.event === "started" ? { runs: eb("runs", "+", 1), started_at: new Date() } : { finished_at: new Date() },
    )
    .where("job", "=", run.job)
    .where("job_id", "=", run.jobId)
    .execute();
}

/** Forgets a job's periods that started before `before`. */
export async function pruneScheduledRuns(db: DbOrTrx, params: { job: string; before: Date }): Promise<void> {
  await db
    .deleteFrom("scheduled_run")
    .where("job", "=", params.job)
    .where("period_start", "<", params.before)
    .execute();
}

/** A scheduled job's periods from `since` on, oldest first (tests and diagnostics). */
export async function listScheduledRuns(db: DbOrTrx, params: { job: string; since: Date }) {
  return db
    .selectFrom("scheduled_run")
    .select(["job", "period_start", "job_id", "runs", "started_at", "finished_at"])
    .where("job", "=", params.job)
    .where("period_start", ">=", params.since)
    .orderBy("period_start")
    .execute();
}

/**
 * Lets the job queue (pg-boss, which takes `{ db: { executeSql } }`) write its job in a transaction of ours, so a
 * claimed period and its queued job are stored together or not at all.
 */
export function queueExecutor(db: DbOrTrx): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const result = await db.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows };
    },
  };
}
