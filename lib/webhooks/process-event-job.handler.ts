import "server-only";
import { getDb } from "@/db";
import { recordWebhookEventFailure } from "@/db/queries/webhooks";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { processWebhookEvent } from "./process-event";
import { MAX_EVENT_ATTEMPTS, type processWebhookEventJob } from "./process-event-job";

export const handleProcessWebhookEvent: JobHandler<typeof processWebhookEventJob.payload> = async ({ eventId }) => {
  const db = getDb();
  try {
    const outcome = await processWebhookEvent(db, eventId);
    log.info("webhook event processed", { id: eventId, outcome });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const recorded = await recordWebhookEventFailure(db, eventId, {
      error: message,
      maxAttempts: MAX_EVENT_ATTEMPTS,
    }).catch(() => null);
    if (recorded?.status === "failed")
      log.error("webhook event failed for good", { id: eventId, attempts: recorded.attempts, error });
    throw error;
  }
};
