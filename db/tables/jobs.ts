import type { ColumnType } from "kysely";

/** A scheduled job's period, claimed by the process that queued its run (lib/jobs/scheduler.ts). */
export type ScheduledRunTable = {
  job: string;
  period_start: Date;
  job_id: string | null;
  claimed_at: ColumnType<Date, Date | undefined, never>;
  runs: ColumnType<number, number | undefined, number>;
  started_at: Date | null;
  finished_at: Date | null;
};

export type JobTables = {
  scheduled_run: ScheduledRunTable;
};
