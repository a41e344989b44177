"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Badge } from "@/app/_components/ui/badge";
import { formatDuration } from "@/lib/snapshots/progress";

export type PullProgressView = {
  id: string;
  status: "queued" | "running" | "retrying" | "complete" | "failed";
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
};

const POLL_MS = 1_000;
const ACTIVE = new Set(["queued", "running", "retrying"]);

/**
 * Live progress of one pull: polls its progress route every second while it is queued or running and refreshes the
 * page when it finishes, so the new snapshot shows without a reload.
 */
export function SnapshotProgress({ initial }: { initial: PullProgressView }) {
  const [pull, setPull] = useState(initial);
  const [now, setNow] = useState(() => Date.now());
  const [lost, setLost] = useState(false);
  const router = useRouter();

  useEffect(() => {
    if (!ACTIVE.has(pull.status)) return;
    let stopped = false;
    const timer = setInterval(async () => {
      setNow(Date.now());
      try {
        const response = await fetch(`/api/snapshots/${pull.id}/progress`, { cache: "no-store" });
        if (!response.ok) throw new Error(String(response.status));
        const next = (await response.json()) as PullProgressView;
        if (stopped) return;
        setLost(false);
        setPull(next);
        if (!ACTIVE.has(next.status)) router.refresh();
      } catch {
        if (!stopped) setLost(true);
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [pull.id, pull.status, router]);

  const estimated = Math.max(pull.pagesEstimated ?? 0, pull.pagesFetched, 1);
  const percent = pull.status === "complete" ? 100 : Math.min(99, Math.floor((pull.pagesFetched / estimated) * 100));
  const eta = pull.etaAt ? Math.max(0, Date.parse(pull.etaAt) - now) : null;
  const tone = pull.status === "failed" ? "danger" : pull.status === "retrying" ? "warning" : pull.status === "complete" ? "success" : "info";
  const label = `Snapshot ${pull.window.start} to ${pull.window.end}`;

  return (
    <div className="rounded-lg border border-line bg-surface px-4 py-3" aria-label={label} role="group">
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
        aria-valuenow={percent}
      >
        <div className="h-full bg-accent transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 text-xs text-ink-muted sm:grid-cols-6" aria-live="polite">
        <Figure label="Pages" value={`${pull.pagesFetched.toLocaleString("en-US")} / ${estimated.toLocaleString("en-US")}`} />
        <Figure
          label="Recipients"
          value={`${pull.recipientsFetched.toLocaleString("en-US")}${pull.recipientsTotal === null ? "" : ` / ${pull.recipientsTotal.toLocaleString("en-US")}`}`}
        />
        <Figure label="Lines" value={pull.linesFetched.toLocaleString("en-US")} />
        <Figure label="429s" value={pull.rateLimited.toLocaleString("en-US")} />
        <Figure label="Sub-windows" value={pull.subWindows.toLocaleString("en-US")} />
        <Figure label="ETA" value={ACTIVE.has(pull.status) ? (eta === null ? "estimating…" : formatDuration(eta)) : "—"} />
      </dl>
      <p className="mt-1 text-xs text-ink-muted">{pull.phase}</p>
      {pull.error ? (
        <p className="mt-1 text-xs text-danger-ink" role={pull.status === "failed" ? "alert" : undefined}>
          {pull.status === "failed" ? "Failed" : "Last attempt failed"}: {pull.error.message} ({pull.error.code})
        </p>
      ) : null}
      {lost ? <p className="mt-1 text-xs text-warning-ink">Progress could not be refreshed; retrying.</p> : null}
    </div>
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
