"use client";

import { Badge } from "@/app/_components/ui/badge";
import { summarizePullProgress } from "@/lib/snapshots/progress";
import type { PullProgressView } from "./snapshot-progress";
import { usePullProgress } from "./use-pull-progress";

/** A window's row while its snapshot is being taken: the same live figures as the pull's card above. */
export function PullingState({ initial, label }: { initial: PullProgressView; label: string }) {
  const { pull } = usePullProgress(initial);
  const progress = summarizePullProgress(pull);
  return (
    <>
      <Badge tone={pull.status === "failed" ? "danger" : "info"}>
        {progress.active ? `${label} ${progress.percent}%` : pull.status === "failed" ? "Pull failed" : "Published"}
      </Badge>
      <span className="text-xs text-ink-muted">
        {progress.pages} pages, {progress.recipients} recipients
      </span>
    </>
  );
}
