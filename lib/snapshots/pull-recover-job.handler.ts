import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import { recoverPulls } from "./pull";
import type { recoverSnapshotPullsJob } from "./pull-recover-job";

export const handleRecoverSnapshotPulls: JobHandler<typeof recoverSnapshotPullsJob.payload> = async () => {
  await recoverPulls(getDb());
};
