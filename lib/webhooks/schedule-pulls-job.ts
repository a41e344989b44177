import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Queues the scheduled pulls that are due: the month just closed (on the 1st) and the month so far (daily). */
export const scheduleSnapshotPullsJob = defineJob({
  name: "webhooks.schedule-pulls",
  payload: z.object({}),
  retryLimit: 3,
  expireInMinutes: 10,
  policy: "stately",
  // Hourly, so a day or a month start missed while the server was down is caught up within the hour it comes back.
  schedule: { cron: "7 * * * *", payload: {} },
});
