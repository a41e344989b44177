"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useRef, useTransition } from "react";

/** Query parameters to change: a string sets one, null (or "") removes it. */
export type ParamPatch = Record<string, string | null>;

export type TableUrl = {
  /** Current query (including changes still loading). */
  params: URLSearchParams;
  setParams: (patch: ParamPatch) => void;
  /** True while the server renders the rows for the new URL. */
  isPending: boolean;
};

const TableUrlContext = createContext<TableUrl | null>(null);
export const TableUrlProvider = TableUrlContext.Provider;

/**
 * Owns the table's URL: every change is a router.replace (no history entry per keystroke or sort click, no scroll
 * jump) inside a transition, so the old rows stay visible, marked busy, until the server sends the new ones.
 */
export function useTableUrlController(): TableUrl {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const [isPending, startTransition] = useTransition();
  // The URL only changes when a navigation commits; a second change made before that (typing, then a sort click)
  // must build on the first one, not on the stale committed query.
  const requested = useRef<{ base: string; next: string } | null>(null);
  const committed = searchParams.toString();

  const current = useCallback(() => {
    const pending = requested.current;
    return new URLSearchParams(pending && pending.base === committed ? pending.next : committed);
  }, [committed]);

  const setParams = useCallback(
    (patch: ParamPatch) => {
      const next = current();
      for (const [name, value] of Object.entries(patch)) {
        if (value === null || value === "") next.delete(name);
        else next.set(name, value);
      }
      const query = next.toString();
      requested.current = { base: committed, next: query };
      startTransition(() => router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false }));
    },
    [committed, current, pathname, router],
  );

  return useMemo(() => ({ params: current(), setParams, isPending }), [current, setParams, isPending]);
}

/** The URL controller of the surrounding <DataTable> (search box, filters and pagination use it). */
export function useTableUrl(): TableUrl {
  const value = useContext(TableUrlContext);
  if (!value) throw new Error("useTableUrl must be used inside <DataTable> (or a <TableUrlProvider>)");
  return value;
}
