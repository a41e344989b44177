"use client";

import { usePathname } from "next/navigation";
import { createContext, type ReactNode, use, useCallback, useEffect, useRef, useState } from "react";
import { MessageWithDismiss } from "./dismissible-message";
import { TONE_SOFT } from "./tone";

const PageAlertContext = createContext<(message: string) => void>(() => {});

/**
 * The top of a page's content, where a refusal goes when the dialog or panel that showed it is drawn away (the batch
 * a colleague approved first no longer offers Approve): read out at once, kept until dismissed or another page opens.
 */
export function PageAlertProvider({ children }: { children: ReactNode }) {
  const [alert, setAlert] = useState<{ message: string; round: number } | null>(null);
  const pathname = usePathname();
  const [shownOn, setShownOn] = useState(pathname);
  if (pathname !== shownOn) {
    setShownOn(pathname);
    setAlert(null);
  }
  const show = useCallback((message: string) => setAlert((last) => ({ message, round: (last?.round ?? 0) + 1 })), []);
  return (
    <PageAlertContext value={show}>
      {alert ? (
        <div
          key={alert.round}
          role="alert"
          className={`mb-4 flex items-start gap-3 rounded-md border px-3 py-2 text-sm ${TONE_SOFT.danger}`}
        >
          <MessageWithDismiss message={alert.message} onDismiss={() => setAlert(null)} />
        </div>
      ) : null}
      {children}
    </PageAlertContext>
  );
}

/**
 * For a dialog or panel that shows a refusal: should it be drawn away while showing one (the page, refreshed for the
 * refusal, no longer offers it), the refusal moves to the top of the page and focus to the page's content, where it
 * would otherwise fall to the document's start. Returns the setter of the refusal shown now (null once none is):
 * called as the refusal arrives, since the refresh and the refusal land in the same render.
 */
export function useAlertWhenGone(): (message: string | null) => void {
  const show = use(PageAlertContext);
  const shown = useRef<{ message: string; path: string } | null>(null);
  useEffect(
    () => () => {
      const left = shown.current;
      if (!left) return;
      // Once the address has settled: gone because another page opened (the browser's Back), it says nothing there.
      window.setTimeout(() => {
        if (window.location.pathname !== left.path) return;
        show(left.message);
        keepFocusInPage(null);
      }, 0);
    },
    [show],
  );
  return useCallback((message: string | null) => {
    shown.current = message === null ? null : { message, path: window.location.pathname };
  }, []);
}

/**
 * Focus goes back to the element that had it before (the button that opened a dialog); an action often takes that
 * element away (the statement approved no longer offers Approve). Then focus would fall to the document's start: it
 * goes to the page's main content instead, so a keyboard or screen reader user goes on from there, not from the
 * navigation. `opener` null: focus is watched the same way, with no element to go back to.
 */
export function keepFocusInPage(opener: Element | null): void {
  const started = Date.now();
  const timer = window.setInterval(() => {
    const active = document.activeElement;
    const lost = active === null || active === document.body;
    const gone = opener === null || !opener.isConnected;
    if (gone && lost) document.getElementById("main-content")?.focus();
    // Watched until the page has rendered the change: the opener gone, focus moved on, or five seconds.
    if ((opener !== null && gone) || (!lost && active !== opener) || Date.now() - started > 5_000)
      window.clearInterval(timer);
  }, 100);
}
