import "server-only";
import { log } from "@/lib/log";
import { ensureQueue, getBoss } from "./queue";
import { JOBS } from "./registry";

/**
 * Starts the workers for every registered job in this process (the app server starts them through
 * instrumentation.ts; tests start them directly). Calling it twice does nothing the second time.
 */
const holder = globalThis as unknown as { __payoutDeskWorkers?: Promise<void> };

export function startWorkers(): Promise<void> {
  holder.__payoutDeskWorkers ??= (async () => {
    const boss = await getBoss();
    for (const job of JOBS) {
      await ensureQueue(boss, job.definition);
      const handler = await job.handler();
      // pg-boss 10 runs one handler call per worker at a time; concurrency is that many workers.
      for (let worker = 0; worker < (job.concurrency ?? 1); worker++) {
        await boss.work(
          job.definition.name,
          { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true },
          async ([entry]) => {
            if (!entry) return;
            const payload = job.definition.payload.parse(entry.data);
            const startedAt = Date.now();
            const attempt = entry.retryCount + 1;
            try {
              await handler(payload, { jobId: entry.id, attempt });
              log.info("job done", { job: job.definition.name, id: entry.id, ms: Date.now() - startedAt });
            } catch (error) {
              log.warn("job failed", { job: job.definition.name, id: entry.id, attempt, error });
              throw error;
            }
          },
        );
      }
      if (job.schedule) await boss.schedule(job.definition.name, job.schedule.cron, job.schedule.payload, { tz: "UTC" });
    }
    log.info("workers started", { jobs: JOBS.map((j) => j.definition.name) });
  })();
  return holder.__payoutDeskWorkers;
}
