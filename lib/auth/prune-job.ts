import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Forgets sign-in attempts no limit reads any more (lib/auth/sign-in.ts `pruneSignInAttempts`), hourly. */
export const pruneSignInAttemptsJob = defineJob({
  name: "auth.prune-sign-ins",
  payload: z.object({}),
  retryLimit: 1,
  expireInMinutes: 5,
  policy: "stately",
  schedule: { cron: "17 * * * *", payload: {} },
});
