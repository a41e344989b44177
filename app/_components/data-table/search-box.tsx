"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useTableUrl } from "./use-table-url";

export type SearchBoxProps = {
  /** Visible label; also names the search landmark. */
  label?: string;
  placeholder?: string;
  /** Milliseconds of quiet before the URL (and so the server query) changes. */
  debounceMs?: number;
  className?: string;
};

/**
 * Search written to `q` in the URL: after a pause in typing, at once on Enter. Going back to page 1 with every
 * change. Escape in the field clears it (browser behaviour of type="search").
 */
export function SearchBox({ label = "Search", placeholder, debounceMs = 300, className }: SearchBoxProps) {
  const { params, setParams } = useTableUrl();
  const urlValue = params.get("q") ?? "";
  const [value, setValue] = useState(urlValue);
  const lastWritten = useRef(urlValue);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inputId = useId();

  // The URL changed from elsewhere (Back, "Clear filters"): show it, unless it is our own write arriving.
  const [seen, setSeen] = useState(urlValue);
  if (urlValue !== seen) {
    setSeen(urlValue);
    if (urlValue !== lastWritten.current) {
      lastWritten.current = urlValue;
      setValue(urlValue);
    }
  }

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  function write(next: string) {
    if (timer.current) clearTimeout(timer.current);
    const trimmed = next.trim();
    if (trimmed === lastWritten.current) return;
    lastWritten.current = trimmed;
    setParams({ q: trimmed || null, page: null });
  }

  return (
    <search aria-label={label} className={className}>
      <form
        className="flex flex-col gap-1"
        onSubmit={(event) => {
          event.preventDefault();
          write(value);
        }}
      >
        <label htmlFor={inputId} className="text-xs font-medium text-ink-muted">
          {label}
        </label>
        <input
          id={inputId}
          type="search"
          name="q"
          value={value}
          placeholder={placeholder}
          autoComplete="off"
          maxLength={200}
          onChange={(event) => {
            const next = event.target.value;
            setValue(next);
            if (timer.current) clearTimeout(timer.current);
            timer.current = setTimeout(() => write(next), debounceMs);
          }}
          className={
            "h-8 w-64 max-w-full rounded-md border border-line-strong bg-surface px-2.5 text-sm text-ink " +
            "placeholder:text-ink-muted"
          }
        />
      </form>
    </search>
  );
}
