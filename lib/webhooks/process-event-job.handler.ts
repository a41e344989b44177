import "server-only";
import { type Db, getDb } from "@/db";
import { recordWebhookEventFailure } from "@/db/queries/webhooks";
import type { JobHandler } from "@/lib/jobs/queue";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processWebhookEvent } from "./process-event";
import { MAX_EVENT_ATTEMPTS, type processWebhookEventJob } from "./process-event-job";
import { snapshotLink, type SnapshotLink } from "./snapshot-link";

/** What an event shows for a failure that is not one of the desk's own refusals. */
export const UNEXPECTED = "processing failed unexpectedly; the server's log has the cause, under this event's id";

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
    // Every signed-in role reads what is kept: a refusal of the desk's own says why; anything else (a database or
    // programming error) is named only in the log, under the event's id.
    const message = isAppError(error) ? error.message : UNEXPECTED;
    const recorded = await recordWebhookEventFailure(db, eventId, {
      error: message,
      maxAttempts: MAX_EVENT_ATTEMPTS,
    }).catch(() => null);
    if (recorded?.status === "failed")
      log.error("webhook event failed for good", { id: eventId, attempts: recorded.attempts, error });
    else log.warn("webhook event failed; it is tried again", { id: eventId, attempts: recorded?.attempts, error });
    throw error;
  }
}

export const handleProcessWebhookEvent: JobHandler<typeof processWebhookEventJob.payload> = async ({ eventId }) => {
  await processWebhookEventOnce(getDb(), eventId);
};
