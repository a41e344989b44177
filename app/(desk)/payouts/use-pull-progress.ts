"use client";

import { useRouter } from "next/navigation";
import { useCallback, useMemo, useSyncExternalStore } from "react";
import { isPullActive } from "@/lib/snapshots/progress";
import type { PullProgressView } from "./snapshot-progress";

/**
 * One live copy of each pull's progress in the browser, shared by every place that shows it (the card above and the
 * row of the windows table): one poll per pull, whoever shows it, so the two can never disagree. When the pull
 * finishes the page is refreshed once, so the new snapshot replaces the progress everywhere at the same time.
 */

const POLL_MS = 1_000;

type Entry = {
  view: PullProgressView;
  lost: boolean;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setInterval> | null;
  onFinish: (() => void) | null;
  finished: boolean;
  state: { view: PullProgressView; lost: boolean };
};

const entries = new Map<string, Entry>();

function publish(entry: Entry): void {
  entry.state = { view: entry.view, lost: entry.lost };
  for (const listener of entry.listeners) listener();
}

async function poll(id: string): Promise<void> {
  const entry = entries.get(id);
  if (!entry) return;
  try {
    const game = encodeURIComponent(entry.view.gameId);
    const response = await fetch(`/api/snapshots/${id}/progress?game=${game}`, { cache: "no-store" });
    if (!response.ok) throw new Error(String(response.status));
    const next = (await response.json()) as PullProgressView;
    if (entries.get(id) !== entry) return;
    entry.view = next;
    entry.lost = false;
    if (!isPullActive(next.status)) stop(entry);
    publish(entry);
    if (!isPullActive(next.status) && !entry.finished) {
      entry.finished = true;
      entry.onFinish?.();
    }
  } catch {
    if (entries.get(id) !== entry) return;
    entry.lost = true;
    publish(entry);
  }
}

function stop(entry: Entry): void {
  if (entry.timer) clearInterval(entry.timer);
  entry.timer = null;
}

function entryFor(initial: PullProgressView): Entry {
  let entry = entries.get(initial.id);
  if (!entry) {
    entry = {
      view: initial,
      lost: false,
      listeners: new Set(),
      timer: null,
      onFinish: null,
      finished: false,
      state: { view: initial, lost: false },
    };
    entries.set(initial.id, entry);
  } else if (!isPullActive(initial.status) && isPullActive(entry.view.status)) {
    // The server already knows the end (a refreshed page): take it.
    entry.view = initial;
    entry.state = { view: initial, lost: entry.lost };
  }
  return entry;
}

/** The live progress of a pull, from the one shared copy; `initial` is what the server rendered. */
export function usePullProgress(initial: PullProgressView): { pull: PullProgressView; lost: boolean } {
  const router = useRouter();
  const subscribe = useCallback(
    (listener: () => void) => {
      const entry = entryFor(initial);
      entry.listeners.add(listener);
      entry.onFinish ??= () => router.refresh();
      if (!entry.timer && isPullActive(entry.view.status))
        entry.timer = setInterval(() => void poll(initial.id), POLL_MS);
      return () => {
        entry.listeners.delete(listener);
        if (entry.listeners.size === 0) {
          stop(entry);
          entries.delete(initial.id);
        }
      };
    },
    [initial, router],
  );
  const rendered = useMemo(() => ({ view: initial, lost: false }), [initial]);
  const state = useSyncExternalStore(
    subscribe,
    () => entries.get(initial.id)?.state ?? rendered,
    () => rendered,
  );
  return { pull: state.view, lost: state.lost };
}
