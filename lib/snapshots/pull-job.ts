import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Pulls one requested window (a snapshot_pull row) and publishes it. Every attempt starts the pull afresh. */
export const pullSnapshotJob = defineJob({
  name: "snapshot-pull",
  payload: z.object({ pullId: z.uuid() }),
  retryLimit: 4,
  retryDelaySeconds: 5,
  // A large month under the documented limits takes hours (about three for 10,000 report calls). Past its expiry
  // pg-boss stops waiting for the job while the pull goes on, and the worker takes more pulls than its concurrency, so
  // it is the longest pg-boss allows (under 24 hours). A worker that died is noticed sooner, by the pull's heartbeat
  // and lock (recovery queues it again within a minute or two), not by this expiry.
  expireInMinutes: 23 * 60,
  // One job waiting per pull (recovery asks again every minute); the pull's advisory lock keeps runs apart.
  policy: "short",
  singletonKey: (payload) => payload.pullId,
  concurrency: 2,
});
