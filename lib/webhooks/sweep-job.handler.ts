import "server-only";
import type { JobHandler } from "@/lib/jobs/queue";
import { sweepWebhookEvents } from "./sweep";
import type { sweepWebhookEventsJob } from "./sweep-job";

export const handleSweepWebhookEvents: JobHandler<typeof sweepWebhookEventsJob.payload> = async () => {
  await sweepWebhookEvents();
};
