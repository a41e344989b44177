import "server-only";
import type { z } from "zod";
import type { JobDefinition } from "./queue";

/**
 * Every job the workers run: a definition and its handler. Each area adds its jobs here, e.g.
 *   { definition: pullSnapshotJob, handler: () => import("@/lib/snapshots/pull-job").then((m) => m.handlePullSnapshot) }
 */
export type JobHandler<S extends z.ZodType> = (payload: z.output<S>, meta: { jobId: string; attempt: number }) => Promise<void>;

export type RegisteredJob = {
  definition: JobDefinition<z.ZodType>;
  handler: () => Promise<JobHandler<z.ZodType>>;
  /** How many of these run at once in one process. */
  concurrency?: number;
  /** Cron (UTC) for jobs that queue themselves on a schedule. */
  schedule?: { cron: string; payload: object };
};

export const JOBS: RegisteredJob[] = [];
