"use client";

import { countOf, formatCount } from "@/lib/format";
import { useEffect, useState } from "react";
import { Badge } from "@/app/_components/ui/badge";
import { formatDuration, type PullStatus, summarizePullProgress } from "@/lib/snapshots/progress";
import { usePullProgress } from "./use-pull-progress";

export type PullProgressView = {
  id: string;
  /** The game it is a pull of: progress is asked of it, whichever game the session has selected since. */
  gameId: string;
  status: PullStatus;
  phase: string;
  window: { start: string; end: string };
  attempts: number;
  pagesFetched: number;
  pagesEstimated: number | null;
  recipientsFetched: number;
  recipientsTotal: number | null;
  linesFetched: number;
  reversalsFetched: number;
  rateLimited: number;
  retries: number;
  subWindows: number;
  etaAt: string | null;
  error: { code: string; message: string } | null;
  /** How long a failing page is asked again before the pull gives up (PAYOUT_DESK_PULL_RETRY_MINUTES). */
  retryBudgetMs: number;
};

/**
 * Live progress of one pull: the shared live copy (usePullProgress) read through the one summary of its figures, so
 * the card, the windows table and the CLI say the same thing; the page refreshes when the pull finishes.
 */
export function SnapshotProgress({ initial }: { initial: PullProgressView }) {
  const { pull, lost } = usePullProgress(initial);
  const [now, setNow] = useState(() => Date.now());
  const progress = summarizePullProgress(pull);

  useEffect(() => {
    if (!progress.active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [progress.active]);

  const eta = pull.etaAt ? Math.max(0, Date.parse(pull.etaAt) - now) : null;
  const tone =
    pull.status === "failed"
      ? "danger"
      : pull.status === "retrying"
        ? "warning"
        : pull.status === "complete"
          ? "success"
          : "info";
  const label = `Snapshot ${pull.window.start} to ${pull.window.end}`;

  return (
    <section className="rounded-lg border border-line bg-surface px-4 py-3" aria-label={label}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-medium text-ink">
          {pull.window.start} → {pull.window.end}
        </p>
        <Badge tone={tone}>{pull.status === "retrying" ? `retrying (attempt ${pull.attempts})` : pull.status}</Badge>
      </div>
      <div
        className="mt-2 h-2 overflow-hidden rounded bg-subtle"
        role="progressbar"
        aria-label={`${label}: pages read`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress.percent}
      >
        <div className="h-full bg-accent transition-[width]" style={{ width: `${progress.percent}%` }} />
      </div>
      {/* The figures change every second while a pull runs: read on demand, not announced. Its status is. */}
      <p className="sr-only" aria-live="polite">
        {label}: {pull.status === "retrying" ? `retrying, attempt ${pull.attempts}` : pull.status}
      </p>
      <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 text-xs text-ink-muted sm:grid-cols-7">
        <Figure label="Pages" value={progress.pages} />
        <Figure label="Recipients" value={progress.recipients} />
        <Figure label="Lines" value={formatCount(pull.linesFetched)} />
        <Figure label="429s" value={formatCount(pull.rateLimited)} />
        <Figure label="Retries" value={formatCount(pull.retries)} />
        <Figure label="Sub-windows" value={formatCount(pull.subWindows)} />
        <Figure label="ETA" value={progress.active ? (eta === null ? "estimating…" : formatDuration(eta)) : "—"} />
      </dl>
      <p className="mt-1 text-xs text-ink-muted">{pull.phase}</p>
      {progress.active && pull.retries > 0 ? (
        <p className="mt-1 text-xs text-ink-muted">
          The service failed {countOf(pull.retries, "time")}; a failing page is asked again for up to{" "}
          {formatDuration(pull.retryBudgetMs)} before the pull gives up.
        </p>
      ) : null}
      {pull.error ? (
        <p className="mt-1 text-xs text-danger-ink" role={pull.status === "failed" ? "alert" : undefined}>
          {pull.status === "failed" ? "Failed" : "Last attempt failed"}: {pull.error.message}
          {pull.error.message.includes(pull.error.code) ? null : ` (${pull.error.code})`}
        </p>
      ) : null}
      {lost ? <p className="mt-1 text-xs text-warning-ink">Progress could not be refreshed; retrying.</p> : null}
    </section>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className="font-medium tabular-nums text-ink">{value}</dd>
    </div>
  );
}
