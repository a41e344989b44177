import "server-only";
import type { Db } from "@/db";
import { updatePull } from "@/db/queries/snapshot-pulls";
import { log } from "@/lib/log";
import type { PullProgress } from "./pull-common";

const PROGRESS_WRITE_MS = 250;

/** Writes progress to the pull row, at most every PROGRESS_WRITE_MS and on every phase change, in order. */
export function progressWriter(db: Db, pullId: string) {
  let chain: Promise<void> = Promise.resolve();
  let lastWrite = 0;
  let lastPhase = "";
  let pending: PullProgress | null = null;
  const write = (p: PullProgress) => {
    chain = chain
      .then(async () => {
        await updatePull(
          db,
          pullId,
          {
            phase: p.phase.slice(0, 200),
            pages_fetched: p.pagesFetched,
            pages_estimated: p.pagesEstimated,
            recipients_fetched: p.recipientsFetched,
            recipients_total: p.recipientsTotal,
            lines_fetched: p.linesFetched,
            reversals_fetched: p.reversalsFetched,
            requests: p.requests,
            rate_limited: p.rateLimited,
            retries: p.retries,
            sub_windows: p.subWindows,
            eta_at: p.etaMs === null ? null : new Date(Date.now() + p.etaMs),
            heartbeat_at: new Date(),
            updated_at: new Date(),
          },
          "running",
        );
      })
      .catch((error: unknown) => log.warn("snapshot progress not saved", { pull: pullId, error }));
  };
  let timer: NodeJS.Timeout | null = null;
  const writePending = () => {
    timer = null;
    if (!pending) return;
    lastWrite = Date.now();
    lastPhase = pending.phase;
    write(pending);
    pending = null;
  };
  return {
    update(p: PullProgress, force = false) {
      pending = p;
      if (force || p.phase !== lastPhase || Date.now() - lastWrite >= PROGRESS_WRITE_MS) {
        if (timer) clearTimeout(timer);
        writePending();
        return;
      }
      // The last figures before a pause (the pacer waiting for the next slot) must reach the page too.
      timer ??= setTimeout(writePending, PROGRESS_WRITE_MS);
    },
    async flush() {
      if (timer) clearTimeout(timer);
      writePending();
      await chain;
    },
  };
}
