import { type Kysely, sql } from "kysely";

// One row per scheduled job and period: the process that inserts it queues that period's run (in the same
// transaction), so a period is run once however many processes run workers. The worker notes when the run started
// (how many times, a retry counting again) and finished.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table scheduled_run (
    job text not null,
    period_start timestamptz not null,
    job_id text,
    claimed_at timestamptz not null default now(),
    runs integer not null default 0,
    started_at timestamptz,
    finished_at timestamptz,
    primary key (job, period_start)
  )`.execute(db);
  await sql`create index scheduled_run_job_id on scheduled_run (job_id) where job_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table scheduled_run`.execute(db);
}
