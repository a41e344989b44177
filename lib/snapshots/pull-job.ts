import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Pulls one requested window (a snapshot_pull row) and publishes it. Every attempt starts the pull afresh. */
export const pullSnapshotJob = defineJob({
  name: "snapshot-pull",
  payload: z.object({ pullId: z.uuid() }),
  retryLimit: 4,
  retryDelaySeconds: 5,
  // A pull under the documented limits of a 400-day window takes minutes; a worker that died holds the job this long.
  expireInMinutes: 60,
  // One job waiting per pull (recovery asks again every minute); the pull's advisory lock keeps runs apart.
  policy: "short",
  singletonKey: (payload) => payload.pullId,
  concurrency: 2,
});
