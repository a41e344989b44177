import "server-only";
import type { z } from "zod";
import { RECONCILE_SCHEDULE, reconcileRefundsJob } from "@/lib/refunds/reconcile-job";
import { pullSnapshotJob, recoverSnapshotPullsJob } from "@/lib/snapshots/jobs";
import {
  processWebhookEventJob,
  SCHEDULE_PULLS_CRON,
  scheduleSnapshotPullsJob,
  SWEEP_CRON,
  sweepWebhookEventsJob,
} from "@/lib/webhooks/jobs";
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

export const JOBS: RegisteredJob[] = [
  {
    definition: reconcileRefundsJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/refunds/reconcile").then((m) => m.handleReconcileRefunds as JobHandler<z.ZodType>),
    schedule: { cron: RECONCILE_SCHEDULE, payload: {} },
  },
  {
    definition: processWebhookEventJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/webhooks/process-event").then((m) => m.handleProcessWebhookEvent as JobHandler<z.ZodType>),
    concurrency: 2,
  },
  {
    definition: sweepWebhookEventsJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/webhooks/sweep").then((m) => m.handleSweepWebhookEvents as JobHandler<z.ZodType>),
    schedule: { cron: SWEEP_CRON, payload: {} },
  },
  {
    definition: scheduleSnapshotPullsJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/webhooks/scheduled-pulls").then((m) => m.handleScheduleSnapshotPulls as JobHandler<z.ZodType>),
    schedule: { cron: SCHEDULE_PULLS_CRON, payload: {} },
  },
  {
    definition: pullSnapshotJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/snapshots/pull-job").then((m) => m.handlePullSnapshot as JobHandler<z.ZodType>),
    concurrency: 2,
  },
  {
    definition: recoverSnapshotPullsJob as JobDefinition<z.ZodType>,
    handler: () => import("@/lib/snapshots/pull-job").then((m) => m.handleRecoverSnapshotPulls as JobHandler<z.ZodType>),
    schedule: { cron: "* * * * *", payload: {} },
  },
];
