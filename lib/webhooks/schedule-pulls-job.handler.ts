import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import type { scheduleSnapshotPullsJob } from "./schedule-pulls-job";
import { scheduleSnapshotPulls } from "./scheduled-pulls";

export const handleScheduleSnapshotPulls: JobHandler<typeof scheduleSnapshotPullsJob.payload> = async () => {
  await scheduleSnapshotPulls(getDb());
};
