import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/**
 * Emails one statement to its recipient. Retried on any refusal or network error; the last attempt's refusal is
 * final and marks the recipient as having a failed delivery (lib/statements/send.ts).
 */
export const sendStatementJob = defineJob({
  name: "statements.send",
  payload: z.object({ gameId: z.string().min(1), statementId: z.uuid(), sendId: z.uuid(), to: z.email() }),
  retryLimit: 3,
  retryDelaySeconds: 2,
  expireInMinutes: 10,
  concurrency: 2,
});

/** Attempts in all: the first and each retry. */
export const SEND_ATTEMPTS = (sendStatementJob.retryLimit ?? 0) + 1;
