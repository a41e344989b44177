import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";
import { refundAttemptIdSchema } from "./schemas";

/**
 * Finishes refund attempts left pending: by a crash between storing an attempt and hearing back from the service, or
 * by a call that ran out of in-call retries (a long 503, FLOW_PAUSED). Runs every minute and may run twice: each
 * attempt is taken with a hold before it is called, and every call reuses the attempt's stored key.
 */
export const reconcileRefundsJob = defineJob({
  name: "refunds.reconcile",
  payload: z.object({ attemptId: refundAttemptIdSchema.optional() }),
  retryLimit: 2,
  expireInMinutes: 15,
  policy: "stately",
  singletonKey: (payload) => payload.attemptId ?? "all",
  schedule: { cron: "* * * * *", payload: {} },
});
