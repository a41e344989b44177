import "server-only";
import { getDb } from "@/db";
import { enqueue, type JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { drainWebhookEvents } from "./drain";
import { drainWebhookEventsJob } from "./drain-job";

export const handleDrainWebhookEvents: JobHandler<typeof drainWebhookEventsJob.payload> = async () => {
  const result = await drainWebhookEvents(getDb());
  if (result.chunks > 0) log.info("webhook events drained", { ...result });
  // A drain that handed over after its time leaves the rest to the next one.
  if (result.more) await enqueue(drainWebhookEventsJob, {});
};
