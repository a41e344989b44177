import "server-only";
import type { z } from "zod";
import { getDb } from "@/db";
import { recordWithRetries } from "@/lib/audit";
import type { JobMeta } from "@/lib/jobs/queue";
import { SEND_ATTEMPTS, type sendStatementJob } from "./send-job";
import { messageOf, recordSendGivenUp, SentNotRecorded } from "./delivery-log";
import { deliverStatement } from "./send";

export async function handleSendStatement(
  payload: z.output<typeof sendStatementJob.payload>,
  meta: JobMeta,
): Promise<void> {
  try {
    await deliverStatement(getDb(), payload, meta.attempt);
  } catch (error) {
    if (meta.attempt < SEND_ATTEMPTS) throw error;
    // The last attempt: an email the server took is recorded as sent, not given up (it went out).
    if (error instanceof SentNotRecorded) return recordWithRetries("statement delivery", error.recordAgain);
    // The last attempt failing for any other reason leaves a record, never a send "queued" for good.
    await recordSendGivenUp(getDb(), payload, meta.attempt, `not sent: ${messageOf(error)}`);
    throw error;
  }
}
