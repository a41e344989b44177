import "server-only";
import { type Db, getDb } from "@/db";
import { recordWebhookEventFailure } from "@/db/queries/webhooks";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import { processWebhookEvent } from "./process-event";
import { MAX_EVENT_ATTEMPTS, type processWebhookEventJob } from "./process-event-job";
import { snapshotLink, type SnapshotLink } from "./snapshot-link";

/**
 * Processes one event; a failure is counted on the event (the try that reaches the limit marks it failed), then
 * thrown.
 */
export async function processWebhookEventOnce(db: Db, eventId: string, link: SnapshotLink = snapshotLink) {
  try {
    const outcome = await processWebhookEvent(db, eventId, link);
    log.info("webhook event processed", { id: eventId, outcome });
    return outcome;
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
}

export const handleProcessWebhookEvent: JobHandler<typeof processWebhookEventJob.payload> = async ({ eventId }) => {
  await processWebhookEventOnce(getDb(), eventId);
};
