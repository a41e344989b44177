import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { pullSnapshotJob } from "./pull-job";
import { PullBusyError, PullFailedError, runPull } from "./pull";

/**
 * The snapshot job: one attempt of the pull per job attempt. A failure another attempt may fix is thrown so pg-boss
 * retries the job; a final one (the pull row says "failed" and why) completes the job, since retrying cannot help.
 */
export const handlePullSnapshot: JobHandler<typeof pullSnapshotJob.payload> = async (payload, meta) => {
  const retryLimit = pullSnapshotJob.retryLimit ?? 0;
  try {
    await runPull(getDb(), payload.pullId, {
      jobId: meta.jobId,
      finalAttempt: meta.attempt > retryLimit,
      signal: meta.signal,
    });
  } catch (error) {
    if (error instanceof PullFailedError && error.final) {
      log.warn("snapshot pull failed", { pull: payload.pullId, code: error.code });
      return;
    }
    if (error instanceof PullBusyError) log.info("snapshot pull busy, retrying later", { pull: payload.pullId });
    throw error;
  }
};
