import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Queues events still pending a while after they arrived (their job was never queued, or was lost). */
export const sweepWebhookEventsJob = defineJob({
  name: "webhooks.sweep",
  payload: z.object({}),
  retryLimit: 1,
  expireInMinutes: 5,
  policy: "stately",
  schedule: { cron: "*/5 * * * *", payload: {} },
});
