import "server-only";
import { getDb } from "@/db";
import { listStalledWebhookEventIds } from "@/db/queries/webhooks";
import { log } from "@/lib/log";
import { enqueue } from "@/lib/jobs/queue";
import { drainWebhookEventsJob } from "./drain-job";
import { processWebhookEventJob } from "./process-event-job";

/** An event pending this long after it arrived has no live job (its first try is queued right after storing). */
export const STALLED_AFTER_MS = 2 * 60_000;
const BATCH = 500;

/**
 * The receiver stores an event, answers, then queues its job; a crash between the two, or a job lost with its
 * queue, would leave the event pending for ever. The sweep queues such events again (processing is idempotent), and
 * a drain when any is pending: a backlog left by a drain that used up its attempts (the database away in a burst)
 * is then taken in chunks at once, not one job an event at 500 a sweep.
 */
export async function sweepWebhookEvents(
  options: { nowMs?: number; queue?: (eventId: string) => Promise<void>; drain?: () => Promise<void> } = {},
): Promise<number> {
  const { ids, pending } = await listStalledWebhookEventIds(getDb(), {
    receivedBefore: new Date((options.nowMs ?? Date.now()) - STALLED_AFTER_MS),
    limit: BATCH,
  });
  if (pending > 0) await (options.drain ?? queueDrain)();
  for (const id of ids) await (options.queue ?? queueEvent)(id);
  if (ids.length > 0) log.info("webhook events queued again", { count: ids.length });
  return ids.length;
}

async function queueDrain(): Promise<void> {
  await enqueue(drainWebhookEventsJob, {});
}

/** One job for one event: also what a processed event owing a re-pull needs (a drain takes only pending events). */
async function queueEvent(eventId: string): Promise<void> {
  await enqueue(processWebhookEventJob, { eventId });
}
