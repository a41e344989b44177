import "server-only";
import type { z } from "zod";
import { pruneSignInAttemptsJob } from "@/lib/auth/prune-job";
import { reconcileRefundsJob } from "@/lib/refunds/reconcile-job";
import { pullSnapshotJob } from "@/lib/snapshots/pull-job";
import { recoverSnapshotPullsJob } from "@/lib/snapshots/pull-recover-job";
import { pruneLinkDownloadsJob } from "@/lib/statements/prune-link-downloads-job";
import { sendGivenUpJob } from "@/lib/statements/send-given-up-job";
import { sendStatementJob } from "@/lib/statements/send-job";
import { drainWebhookEventsJob } from "@/lib/webhooks/drain-job";
import { processWebhookEventJob } from "@/lib/webhooks/process-event-job";
import { scheduleSnapshotPullsJob } from "@/lib/webhooks/schedule-pulls-job";
import { sweepWebhookEventsJob } from "@/lib/webhooks/sweep-job";
import type { JobDefinition, JobHandler, JobMeta, QueueSettings } from "./queue";

/**
 * Every job the workers run: a definition (`<name>.ts`) paired with its handler (`<name>.handler.ts`, loaded when the
 * workers start, so queuing a job never loads the logic). `registerJob` takes both with the same payload schema, so
 * a handler always receives what its definition's schema produces.
 */
export type RegisteredJob = {
  definition: QueueSettings & Pick<JobDefinition<z.ZodType>, "singletonKey">;
  schedule?: QueueSettings["schedule"];
  /** Loads the handler: the returned function checks a job's data against the definition's schema, then runs it. */
  handler: () => Promise<(data: unknown, meta: JobMeta) => Promise<void>>;
};

/** `true` when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * A handler written for another payload is refused at compile time, also next to a definition whose payload is an
 * empty object (whose parsed type, Record<string, never>, any handler would otherwise accept).
 */
export function registerJob<S extends z.ZodType, H extends JobHandler<S>>(
  definition: JobDefinition<S>,
  load: () => Promise<H>,
  ..._samePayload: Same<Parameters<H>[0], z.output<S>> extends true ? [] : [payloadMismatch: never]
): RegisteredJob {
  return {
    definition,
    schedule: definition.schedule,
    handler: async () => {
      const handle = await load();
      return (data, meta) => handle(definition.payload.parse(data), meta);
    },
  };
}

export const JOBS: RegisteredJob[] = [
  registerJob(reconcileRefundsJob, () =>
    import("@/lib/refunds/reconcile-job.handler").then((m) => m.handleReconcileRefunds),
  ),
  registerJob(processWebhookEventJob, () =>
    import("@/lib/webhooks/process-event-job.handler").then((m) => m.handleProcessWebhookEvent),
  ),
  registerJob(drainWebhookEventsJob, () =>
    import("@/lib/webhooks/drain-job.handler").then((m) => m.handleDrainWebhookEvents),
  ),
  registerJob(sweepWebhookEventsJob, () =>
    import("@/lib/webhooks/sweep-job.handler").then((m) => m.handleSweepWebhookEvents),
  ),
  registerJob(scheduleSnapshotPullsJob, () =>
    import("@/lib/webhooks/schedule-pulls-job.handler").then((m) => m.handleScheduleSnapshotPulls),
  ),
  registerJob(pullSnapshotJob, () => import("@/lib/snapshots/pull-job.handler").then((m) => m.handlePullSnapshot)),
  registerJob(recoverSnapshotPullsJob, () =>
    import("@/lib/snapshots/pull-recover-job.handler").then((m) => m.handleRecoverSnapshotPulls),
  ),
  registerJob(sendStatementJob, () => import("@/lib/statements/send-job.handler").then((m) => m.handleSendStatement)),
  registerJob(sendGivenUpJob, () =>
    import("@/lib/statements/send-given-up-job.handler").then((m) => m.handleSendGivenUp),
  ),
  registerJob(pruneSignInAttemptsJob, () =>
    import("@/lib/auth/prune-job.handler").then((m) => m.handlePruneSignInAttempts),
  ),
  registerJob(pruneLinkDownloadsJob, () =>
    import("@/lib/statements/prune-link-downloads-job.handler").then((m) => m.handlePruneLinkDownloads),
  ),
];
