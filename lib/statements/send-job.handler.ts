import "server-only";
import type { z } from "zod";
import { type Db, getDb } from "@/db";
import { recordWithRetries } from "@/lib/audit";
import { type JobMeta, WorkerStoppedError } from "@/lib/jobs/queue";
import { SEND_ATTEMPTS, type sendStatementJob } from "./send-job";
import { messageOf, recordSendGivenUp, SentNotRecorded } from "./delivery-log";
import { deliverStatement } from "./send";

type Payload = z.output<typeof sendStatementJob.payload>;

/** Tries at recording an email the server took: about two minutes, the pause growing to 15 s. */
const RECORD_SENT_TRIES = 12;
const recordSentPause = (tried: number) => Math.min(250 * 2 ** tried, 15_000);

export const handleSendStatement = (payload: Payload, meta: JobMeta) => sendStatement(getDb(), payload, meta);

/** One attempt of the job on `db` (the handler's is the app's database; `pauseMs` is for tests). */
export async function sendStatement(db: Db, payload: Payload, meta: JobMeta, pauseMs = recordSentPause): Promise<void> {
  try {
    await deliverStatement(db, payload, meta.attempt, meta.signal);
  } catch (error) {
    // An email the server took is recorded as sent on any attempt, the database given a couple of minutes to come
    // back: a retry of the job would send it again. Only a database away for longer leaves that to the retry.
    if (error instanceof SentNotRecorded)
      return recordWithRetries("statement delivery", error.recordAgain, pauseMs, RECORD_SENT_TRIES);
    // Handed back at a worker's stop, unsent: its retry sends it, or the queue's dead letter records it given up.
    if (meta.attempt < SEND_ATTEMPTS || error instanceof WorkerStoppedError) throw error;
    // The last attempt failing for any other reason leaves a record, never a send "queued" for good.
    await recordSendGivenUp(db, payload, meta.attempt, `not sent: ${messageOf(error)}`);
    throw error;
  }
}
