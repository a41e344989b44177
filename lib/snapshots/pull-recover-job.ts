import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Finds pulls whose worker died (no heartbeat, lock free) and queues them again, every minute. */
export const recoverSnapshotPullsJob = defineJob({
  name: "snapshot-pull-recover",
  payload: z.object({}),
  retryLimit: 0,
  expireInMinutes: 5,
  policy: "stately",
  schedule: { cron: "* * * * *", payload: {} },
});
