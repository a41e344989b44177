import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";
import { webhookEventIdSchema } from "./event-id";

/** Tries of one event before it is marked failed and shown as such (the sweep counts every try, whoever queued it). */
export const MAX_EVENT_ATTEMPTS = 8;

/** Does what one stored webhook event asks (lib/webhooks/process-event.ts). */
export const processWebhookEventJob = defineJob({
  name: "webhooks.process-event",
  payload: z.object({ eventId: webhookEventIdSchema }),
  retryLimit: 5,
  retryDelaySeconds: 15,
  expireInMinutes: 10,
  // The sweep asks again for events still pending: one job waiting per event is enough.
  policy: "short",
  singletonKey: (payload) => payload.eventId,
  concurrency: 2,
});
