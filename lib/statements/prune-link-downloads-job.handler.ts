import "server-only";
import { getDb } from "@/db";
import { pruneLinkDownloads } from "@/db/queries/statement-links";
import type { JobHandler } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import type { pruneLinkDownloadsJob } from "./prune-link-downloads-job";

export const handlePruneLinkDownloads: JobHandler<typeof pruneLinkDownloadsJob.payload> = async () => {
  const deleted = await pruneLinkDownloads(getDb());
  if (deleted > 0) log.info("statement link download counts pruned", { deleted });
};
