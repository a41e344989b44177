"use client";

import { useId } from "react";
import { formatCount } from "@/lib/format";
import { pageCount } from "@/lib/table-state";
import { Button } from "../ui/button";
import { useSelectOnCommit } from "./use-select-on-commit";
import { useTableUrl } from "./use-table-url";

export type PaginationProps = {
  page: number;
  pageSize: number;
  total: number;
  pageSizes: readonly number[];
};

/**
 * Page X of Y with first / previous / next / last and a page size select. Buttons at the ends are aria-disabled
 * rather than disabled, so the focus stays on "Next" when it takes you to the last page.
 */
export function Pagination({ page, pageSize, total, pageSizes }: PaginationProps) {
  const { setParams } = useTableUrl();
  const sizeId = useId();
  // Applied as the filters are: at once with the mouse, on Enter or leaving it from the keyboard.
  const sizeSelect = useSelectOnCommit(String(pageSize), (value) => setParams({ pageSize: value, page: null }));
  const pages = pageCount(total, pageSize);
  const first = total === 0 ? 0 : Math.min((page - 1) * pageSize + 1, total);
  const last = Math.min(page * pageSize, total);
  const atStart = page <= 1;
  const atEnd = page >= pages;

  function goTo(target: number) {
    const clamped = Math.min(Math.max(target, 1), pages);
    if (clamped === page) return;
    setParams({ page: clamped === 1 ? null : String(clamped) });
  }

  return (
    <nav
      aria-label="Pagination"
      className="flex flex-wrap items-center justify-between gap-3 px-3 py-2 text-sm text-ink-muted"
    >
      <p>
        {total === 0
          ? "No rows"
          : page > pages
            ? `No rows on page ${formatCount(page)} of ${formatCount(pages)}`
            : `Rows ${formatCount(first)}–${formatCount(last)} of ${formatCount(total)}`}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <div className="flex items-center gap-2">
          <label htmlFor={sizeId}>Rows per page</label>
          <select
            id={sizeId}
            {...sizeSelect}
            className="h-7 rounded-md border border-line-strong bg-surface px-1.5 text-sm text-ink"
          >
            {pageSizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        <span className="tabular-nums">
          Page {formatCount(Math.min(page, pages))} of {formatCount(pages)}
        </span>
        <div className="flex items-center gap-1">
          <PageButton label="First page" text="«" disabled={atStart} onClick={() => goTo(1)} />
          <PageButton label="Previous page" text="‹ Previous" disabled={atStart} onClick={() => goTo(page - 1)} />
          <PageButton label="Next page" text="Next ›" disabled={atEnd} onClick={() => goTo(page + 1)} />
          <PageButton label="Last page" text="»" disabled={atEnd} onClick={() => goTo(pages)} />
        </div>
      </div>
    </nav>
  );
}

function PageButton({
  label,
  text,
  disabled,
  onClick,
}: {
  label: string;
  text: string;
  disabled: boolean;
  onClick: () => void;
}) {
  return (
    <Button
      size="sm"
      variant="secondary"
      aria-label={label}
      aria-disabled={disabled || undefined}
      onClick={disabled ? undefined : onClick}
    >
      <span aria-hidden="true">{text}</span>
    </Button>
  );
}
