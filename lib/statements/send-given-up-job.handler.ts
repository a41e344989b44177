import "server-only";
import type { z } from "zod";
import { getDb } from "@/db";
import { SEND_ATTEMPTS } from "./send-job";
import type { sendGivenUpJob } from "./send-given-up-job";
import { recordSendGivenUp } from "./delivery-log";

export async function handleSendGivenUp(payload: z.output<typeof sendGivenUpJob.payload>): Promise<void> {
  const ended = new Error(
    "its last attempt ended without a result (the worker stopped, or it ran past its time limit)",
  );
  await recordSendGivenUp(getDb(), payload, SEND_ATTEMPTS, ended);
}
