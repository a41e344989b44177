import "server-only";
import { defineJob } from "@/lib/jobs/queue";
import { sendGivenUpJob, sendStatementPayload } from "./send-given-up-job";

/**
 * Emails one statement to its recipient. A refusal for good (5xx) is final; a temporary refusal or a network error is
 * tried again, five times over about 15 to 30 minutes (pg-boss's backoff from 30 s), so a mail server restarting or
 * greylisting does not fail a batch's emails; the last attempt's failure is final and marks the recipient as having a
 * failed delivery (lib/statements/delivery-log.ts). A last attempt that ends without a result (its worker died, it
 * expired) is recorded the same way by the job it leaves behind (`sendGivenUpJob`).
 */
export const sendStatementJob = defineJob({
  name: "statements.send",
  payload: sendStatementPayload,
  retryLimit: 5,
  retryDelaySeconds: 30,
  expireInMinutes: 10,
  concurrency: 2,
  deadLetter: sendGivenUpJob,
});

/** Attempts in all: the first and each retry. */
export const SEND_ATTEMPTS = (sendStatementJob.retryLimit ?? 0) + 1;
