import "server-only";
import type { z } from "zod";
import { getDb } from "@/db";
import type { JobMeta } from "@/lib/jobs/queue";
import { SEND_ATTEMPTS, type sendStatementJob } from "./send-job";
import { deliverStatement, recordSendGivenUp } from "./send";

export async function handleSendStatement(
  payload: z.output<typeof sendStatementJob.payload>,
  meta: JobMeta,
): Promise<void> {
  try {
    await deliverStatement(getDb(), payload, meta.attempt);
  } catch (error) {
    // The last attempt failing for any reason leaves a record, never a send "queued" for good.
    if (meta.attempt >= SEND_ATTEMPTS) await recordSendGivenUp(getDb(), payload, meta.attempt, error);
    throw error;
  }
}
