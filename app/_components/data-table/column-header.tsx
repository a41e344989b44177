"use client";

import type { Column } from "@tanstack/react-table";
import type { ReactNode } from "react";
import { cn } from "../cn";

/** The aria-sort value for a column's <th>: only the sorted column says how; others say nothing. */
export function ariaSortOf<TData>(column: Column<TData, unknown>): "ascending" | "descending" | undefined {
  const sorted = column.getIsSorted();
  if (sorted === "asc") return "ascending";
  if (sorted === "desc") return "descending";
  return undefined;
}

/**
 * A column heading. Sortable columns get a <button> (Enter or Space sorts; pressing again reverses); the
 * direction is announced through aria-sort on the <th>, the arrow is decoration.
 */
export function ColumnHeader<TData>({
  column,
  canSort,
  children,
}: {
  column: Column<TData, unknown>;
  canSort: boolean;
  children: ReactNode;
}) {
  const align = column.columnDef.meta?.align ?? "left";
  if (!canSort) return <>{children}</>;
  const sorted = column.getIsSorted();
  return (
    <button
      type="button"
      // Sorting is done by the server, so a column needs no accessor to be sortable: the click only sets the
      // direction (a new column starts with its first direction; the sorted one flips).
      onClick={() => column.toggleSorting(sorted ? sorted === "asc" : Boolean(column.columnDef.sortDescFirst))}
      className={cn(
        "-mx-1 inline-flex items-center gap-1 rounded px-1 py-0.5 font-semibold hover:bg-line hover:text-ink",
        align === "right" ? "flex-row-reverse" : undefined,
      )}
    >
      <span>{children}</span>
      <SortIcon sorted={sorted} />
    </button>
  );
}

function SortIcon({ sorted }: { sorted: false | "asc" | "desc" }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 12 12" className={cn("size-3", sorted ? "text-ink" : "text-ink-muted/60")}>
      {sorted === "asc" ? <path d="M6 2.5L10 8H2z" fill="currentColor" /> : null}
      {sorted === "desc" ? <path d="M6 9.5L2 4h8z" fill="currentColor" /> : null}
      {!sorted ? <path d="M6 1.5L9 5H3zM6 10.5L3 7h6z" fill="currentColor" /> : null}
    </svg>
  );
}
