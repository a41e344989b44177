import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Job definitions of the webhook area; handlers live in their own files (registered in lib/jobs/registry.ts). */

/** Tries of one event before it is marked failed and shown as such (the sweep counts every try, whoever queued it). */
export const MAX_EVENT_ATTEMPTS = 8;

export const processWebhookEventJob = defineJob({
  name: "webhooks.process-event",
  payload: z.object({ eventId: z.string().regex(/^\d{1,19}$/, { message: "must be a webhook event id" }) }),
  retryLimit: 5,
  retryDelaySeconds: 15,
  expireInMinutes: 10,
  // The sweep asks again for events still pending: one job waiting per event is enough.
  policy: "short",
  singletonKey: (payload) => payload.eventId,
});

/** Queues events still pending a while after they arrived (their job was never queued, or was lost). */
export const sweepWebhookEventsJob = defineJob({
  name: "webhooks.sweep",
  payload: z.object({}),
  retryLimit: 1,
  expireInMinutes: 5,
  policy: "stately",
});

/** Queues the scheduled pulls that are due: the month just closed (on the 1st) and the month so far (daily). */
export const scheduleSnapshotPullsJob = defineJob({
  name: "webhooks.schedule-pulls",
  payload: z.object({}),
  retryLimit: 3,
  expireInMinutes: 10,
  policy: "stately",
});

export const SWEEP_CRON = "*/5 * * * *";
/** Hourly, so a day or a month start missed while the server was down is caught up within the hour it comes back. */
export const SCHEDULE_PULLS_CRON = "7 * * * *";
