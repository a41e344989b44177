import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** What a statement email's job carries: the statement, its send and the address it goes to. */
export const sendStatementPayload = z.object({
  gameId: z.string().min(1),
  statementId: z.uuid(),
  sendId: z.uuid(),
  to: z.email(),
});

/**
 * A statement email whose job failed for good without recording why: its last attempt's worker died or stopped, or the
 * attempt ran past its expiry. The send is recorded as finally failed, with no result (lib/statements/delivery-log.ts),
 * so the batch's send offers the statement again instead of showing it queued for good; a send already recorded sent
 * or failed is left.
 * pg-boss inserts it with the failed job's retry limit alone: a failure here is tried again at once, up to 5 times.
 */
export const sendGivenUpJob = defineJob({
  name: "statements.send.given-up",
  payload: sendStatementPayload,
  retryLimit: 5,
});
