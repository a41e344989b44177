import "server-only";
import { z } from "zod";
import { defineJob } from "@/lib/jobs/queue";

/** Forgets statement link download counts whose hour is over (lib/statements/link-download.ts), hourly. */
export const pruneLinkDownloadsJob = defineJob({
  name: "statements.prune-link-downloads",
  payload: z.object({}),
  retryLimit: 1,
  expireInMinutes: 5,
  policy: "stately",
  schedule: { cron: "23 * * * *", payload: {} },
});
