import "server-only";
import type { z } from "zod";
import { getDb } from "@/db";
import type { JobMeta } from "@/lib/jobs/queue";
import type { sendStatementJob } from "./send-job";
import { deliverStatement } from "./send";

export async function handleSendStatement(
  payload: z.output<typeof sendStatementJob.payload>,
  meta: JobMeta,
): Promise<void> {
  await deliverStatement(getDb(), payload, meta.attempt);
}
