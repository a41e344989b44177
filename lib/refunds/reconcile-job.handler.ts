import "server-only";
import { getDb } from "@/db";
import type { JobHandler } from "@/lib/jobs/queue";
import { reconcilePendingRefunds } from "./reconcile";
import type { reconcileRefundsJob } from "./reconcile-job";

export const handleReconcileRefunds: JobHandler<typeof reconcileRefundsJob.payload> = async (payload) => {
  await reconcilePendingRefunds(getDb(), { attemptId: payload.attemptId });
};
