import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import type { pullSnapshotJob } from "./pull-job";
import { PullBusyError, PullFailedError, queuePull, runPull } from "./pull";

/**
 * The snapshot job: one attempt of the pull per job attempt. A failure another attempt may fix is thrown so pg-boss
 * retries the job; a final one (the pull row says "failed" and why) completes the job, since retrying cannot help.
 * Which attempt is the last is the pull's to count (MAX_PULL_ATTEMPTS), not the job's: a job handed back at a worker's
 * stop, or retried while another worker held the window, used a retry of the job but no attempt of the pull. A job
 * whose retries run out first leaves its pull active, and the recovery job queues it again. A pull the service asked
 * for a wait that did not fit what was left of its retry budget is queued again to start after the wait, and this job
 * completes.
 */
export const handlePullSnapshot: JobHandler<typeof pullSnapshotJob.payload> = async (payload, meta) => {
  try {
    await runPull(getDb(), payload.pullId, { jobId: meta.jobId, signal: meta.signal });
  } catch (error) {
    if (error instanceof PullFailedError && error.final) {
      log.warn("snapshot pull failed", { pull: payload.pullId, code: error.code });
      return;
    }
    if (error instanceof PullFailedError && error.retryAfterMs !== null) {
      // Retried by pg-boss after a few seconds, the attempt would meet the same 429 and spend the pull's attempts.
      await queuePull(getDb(), payload.pullId, error.retryAfterMs);
      log.info("snapshot pull rate limited, queued again", { pull: payload.pullId, afterMs: error.retryAfterMs });
      return;
    }
    if (error instanceof PullBusyError) log.info("snapshot pull busy, retrying later", { pull: payload.pullId });
    throw error;
  }
};
