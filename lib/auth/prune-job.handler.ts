import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import type { pruneSignInAttemptsJob } from "./prune-job";
import { pruneSignInAttempts } from "./sign-in";

export const handlePruneSignInAttempts: JobHandler<typeof pruneSignInAttemptsJob.payload> = async () => {
  const deleted = await pruneSignInAttempts(getDb());
  if (deleted > 0) log.info("sign-in attempts pruned", { deleted });
};
