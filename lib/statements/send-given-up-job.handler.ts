import "server-only";
import type { z } from "zod";
import { getDb } from "@/db";
import { SEND_ATTEMPTS } from "./send-job";
import type { sendGivenUpJob } from "./send-given-up-job";
import { recordSendGivenUp } from "./delivery-log";

export async function handleSendGivenUp(payload: z.output<typeof sendGivenUpJob.payload>): Promise<void> {
  // Whether the mail server took it before the worker stopped is not known: the statement is offered again.
  const answer =
    "no result: its last attempt ended without one (the worker stopped, or it ran past its time limit); the email " +
    "may have gone out";
  await recordSendGivenUp(getDb(), payload, SEND_ATTEMPTS, answer);
}
