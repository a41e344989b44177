import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/**
 * Processes the stored events waiting (lib/webhooks/drain.ts). Every accepted delivery asks for one; the queue keeps
 * at most one waiting (`short`, one key), so a burst of deliveries makes a few drains, not one job per event. Drains
 * running at once in several workers share the events between them.
 */
export const drainWebhookEventsJob = defineJob({
  name: "webhooks.drain",
  payload: z.object({}),
  retryLimit: 5,
  retryDelaySeconds: 5,
  expireInMinutes: 10,
  policy: "short",
  concurrency: 2,
});
