"use client";

import { createContext, type ReactNode, use, useCallback, useState } from "react";
import type { ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { MessageWithDismiss } from "@/app/_components/ui/dismissible-message";
import { TONE_SOFT } from "@/app/_components/ui/tone";

/**
 * What the last confirmed action did ("Approved 381 statements. Skipped 1: …"), read out as a status. The live region
 * is always in the page and floats over it, so a message never moves the buttons or the table.
 */
export function ResultNotice({
  result,
  round = 0,
  onDismiss,
}: {
  result: ConfirmResult | null;
  /** Counts the results reported: a message made anew, so one saying what the last said is read out again. */
  round?: number;
  onDismiss: () => void;
}) {
  const message = result?.ok ? result.message : undefined;
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 bottom-4 z-40 flex justify-center px-4"
    >
      {message ? (
        <div
          key={round}
          className={
            `pointer-events-auto flex max-w-2xl items-start gap-3 rounded-md border px-3 py-2 text-sm ` +
            `shadow-lg ${TONE_SOFT.success}`
          }
        >
          <MessageWithDismiss message={message} onDismiss={onDismiss} />
        </div>
      ) : null}
    </div>
  );
}

const NoticeContext = createContext<(result: ConfirmResult | null) => void>(() => {});

/** One message area for every action of a page: the batch bar and the table's bulk bar both report here. */
export function NoticeProvider({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<{ result: ConfirmResult | null; round: number }>({ result: null, round: 0 });
  const report = useCallback(
    (result: ConfirmResult | null) => setShown((last) => ({ result, round: last.round + 1 })),
    [],
  );
  const message = shown.result?.ok ? shown.result.message : undefined;
  return (
    <NoticeContext value={report}>
      {children}
      {/* Room below the page while a message floats over its foot, so the last rows can be scrolled clear of it. */}
      {message ? <div aria-hidden="true" className="h-24" /> : null}
      <ResultNotice result={shown.result} round={shown.round} onDismiss={() => report(null)} />
    </NoticeContext>
  );
}

/** Reports the result of a confirmed action to the page's message area. */
export function useNotice(): (result: ConfirmResult | undefined) => void {
  const set = use(NoticeContext);
  return (result) => set(result ?? null);
}
