"use client";

import "./column-meta";
import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type OnChangeFn,
  type SortingState,
} from "@tanstack/react-table";
import { type ReactNode, useEffect, useRef } from "react";
import { formatCount } from "@/lib/format";
import { DEFAULT_PAGE_SIZES, isNarrowed, type TableState } from "@/lib/table-state";
import { cn } from "../cn";
import { Button } from "../ui/button";
import { ScrollRegion } from "../ui/scroll-region";
import { ariaSortOf, ColumnHeader } from "./column-header";
import { TableEmptyState } from "./empty-state";
import { useRowSelection } from "./row-selection";
import { Pagination } from "./pagination";
import { SearchBox, type SearchBoxProps } from "./search-box";
import { TableUrlProvider, useTableUrlController } from "./use-table-url";

export type DataTableSelection<TData> = {
  /** Names the row in its checkbox label: "Select {rowLabel}". */
  rowLabel: (row: TData) => string;
  /**
   * The id of a <form> elsewhere on the page: every row checkbox belongs to it (name `ids`, value the row id), so a
   * bulk-action form posts the selected ids to its server action.
   */
  formId?: string;
  name?: string;
  /** The bulk actions, given the selected row ids (for counts and summaries) and a way to clear the selection. */
  actions: (selectedIds: string[], clear: () => void) => ReactNode;
};

export type DataTableProps<TData> = {
  /** Accessible name of the table (visually hidden caption), e.g. "Recipient payouts, March 2026". */
  caption: string;
  // Columns hold values of different types; TanStack's own examples type the list this way.
  // biome-ignore lint/suspicious/noExplicitAny: a column list mixes value types; ColumnDef is invariant in TValue.
  columns: ColumnDef<TData, any>[];
  /** The rows of the current page, as the server queried them. */
  data: TData[];
  /** Rows matching the search and filters, over all pages. */
  total: number;
  /** The table state the server parsed from the URL (lib/table-state.ts) and used for the query. */
  state: TableState;
  /** Column ids the server sorts by (the definition's `config.sortColumns`); other columns get no sort button. */
  sortColumns: readonly string[];
  pageSizes?: readonly number[];
  getRowId: (row: TData) => string;
  /** A search box writing `q`; false for none. */
  search?: Omit<SearchBoxProps, "className"> | false;
  /** Filters (<FilterSelect>) and other controls beside the search box. */
  toolbar?: ReactNode;
  /** Row checkboxes for bulk actions. */
  selection?: DataTableSelection<TData>;
  /** Shown when the table has no rows at all (no search or filter). */
  emptyState?: ReactNode;
  rowClassName?: (row: TData) => string | undefined;
};

const SELECT_COLUMN_ID = "__select";

function columnLabel<TData>(column: Column<TData, unknown>): string {
  const header = column.columnDef.header;
  return column.columnDef.meta?.label ?? (typeof header === "string" ? header : column.id);
}

function alignClass(align: "left" | "right" | "center" | undefined): string {
  if (align === "right") return "text-right";
  if (align === "center") return "text-center";
  return "text-left";
}

/**
 * A table whose sorting, search, filters and paging live in the URL and are done by the server.
 * Use it from a page's own client table component (the columns hold cell renderers, which cannot cross from a
 * server component):
 *
 *   // app/(desk)/payouts/[window]/recipient-table.tsx ("use client")
 *   <DataTable caption="Recipient payouts" columns={columns} data={rows} total={total} state={state}
 *     sortColumns={recipientTable.config.sortColumns} getRowId={(r) => r.recipientId} />
 *
 * Sortable column ids must be the server's sort keys. Amount columns: meta { align: "right" } and
 * sortDescFirst: true (largest first on the first click).
 */
export function DataTable<TData>({
  caption,
  columns,
  data,
  total,
  state,
  sortColumns,
  pageSizes = DEFAULT_PAGE_SIZES,
  getRowId,
  search = {},
  toolbar,
  selection,
  emptyState,
  rowClassName,
}: DataTableProps<TData>) {
  const url = useTableUrlController();
  const sorting: SortingState = [{ id: state.sort, desc: state.dir === "desc" }];

  const onSortingChange: OnChangeFn<SortingState> = (updater) => {
    const next = (typeof updater === "function" ? updater(sorting) : updater)[0];
    url.setParams(
      next ? { sort: next.id, dir: next.desc ? "desc" : "asc", page: null } : { sort: null, dir: null, page: null },
    );
  };

  // The table's scrolling region: focusable, and where the focus goes when its rows and their selection line leave.
  const region = useRef<HTMLElement>(null);
  const { rowSelection, setRowSelection, selectedIds, selectionLine, clearSelection } = useRowSelection(
    data,
    getRowId,
    region,
  );
  // The selection's bar goes when no row shown can be acted on: the focus it held (its line, after an action) would
  // fall to the document's start; it goes to the table instead.
  const hasSelection = Boolean(selection);
  const hadSelection = useRef(hasSelection);
  useEffect(() => {
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (hadSelection.current && !hasSelection && lost) region.current?.focus();
    hadSelection.current = hasSelection;
  }, [hasSelection]);

  // biome-ignore lint/suspicious/noExplicitAny: as for `columns` above.
  const allColumns: ColumnDef<TData, any>[] = selection
    ? [
        {
          id: SELECT_COLUMN_ID,
          enableSorting: false,
          meta: { label: "Select", headerClassName: "w-8", cellClassName: "w-8" },
          header: ({ table }) => (
            <input
              type="checkbox"
              aria-label="Select all rows on this page"
              className="size-4 align-middle"
              checked={table.getIsAllPageRowsSelected()}
              ref={(element) => {
                if (element) element.indeterminate = table.getIsSomePageRowsSelected();
              }}
              onChange={table.getToggleAllPageRowsSelectedHandler()}
            />
          ),
          cell: ({ row }) => (
            <input
              type="checkbox"
              aria-label={`Select ${selection.rowLabel(row.original)}`}
              className="size-4 align-middle"
              name={selection.name ?? "ids"}
              value={row.id}
              form={selection.formId}
              checked={row.getIsSelected()}
              disabled={!row.getCanSelect()}
              onChange={row.getToggleSelectedHandler()}
            />
          ),
        },
        ...columns,
      ]
    : columns;

  const table = useReactTable({
    data,
    columns: allColumns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => getRowId(row),
    manualSorting: true,
    manualPagination: true,
    manualFiltering: true,
    rowCount: total,
    enableMultiSort: false,
    enableSortingRemoval: false,
    enableRowSelection: Boolean(selection),
    state: {
      sorting,
      pagination: { pageIndex: state.page - 1, pageSize: state.pageSize },
      rowSelection,
    },
    onSortingChange,
    onRowSelectionChange: setRowSelection,
  });

  const columnCount = table.getVisibleLeafColumns().length;
  const sortedColumn = table.getColumn(state.sort);
  const first = Math.min((state.page - 1) * state.pageSize + 1, total);
  const last = Math.min(state.page * state.pageSize, total);
  const pastEnd = total > 0 && (state.page - 1) * state.pageSize >= total;
  const announcement =
    total === 0
      ? "No rows."
      : pastEnd
        ? `No rows on page ${formatCount(state.page)}: the list has ${formatCount(total)}.`
        : `Rows ${formatCount(first)} to ${formatCount(last)} of ${formatCount(total)}` +
          (sortedColumn
            ? `, sorted by ${columnLabel(sortedColumn)}, ${state.dir === "desc" ? "descending" : "ascending"}.`
            : ".");

  // The empty body's buttons leave the page with the rows they bring: the focus goes to the table's region first, and
  // the status below it says the rows that came.
  const leaveEmptyBody = (params: Parameters<typeof url.setParams>[0]) => {
    region.current?.focus();
    url.setParams(params);
  };

  return (
    <TableUrlProvider value={url}>
      <div className="rounded-lg border border-line bg-surface">
        {search !== false || toolbar ? (
          <div className="flex flex-wrap items-end gap-3 border-b border-line px-3 py-2.5">
            {search !== false ? <SearchBox {...search} /> : null}
            {toolbar}
          </div>
        ) : null}

        {selection ? (
          <div className="flex min-h-11 flex-wrap items-center gap-3 border-b border-line px-3 py-2">
            <p ref={selectionLine} role="status" tabIndex={-1} className="text-sm text-ink-muted">
              {selectedIds.length === 0 ? "No rows selected" : `${formatCount(selectedIds.length)} selected`}
            </p>
            {selection.actions(selectedIds, clearSelection)}
            {selectedIds.length > 0 ? (
              <Button variant="ghost" size="sm" onClick={clearSelection}>
                Clear selection
              </Button>
            ) : null}
          </div>
        ) : null}

        {/* Focusable so that a table wider than the screen can be scrolled sideways by keyboard. */}
        <ScrollRegion
          ref={region}
          label={`${caption} (scrolls sideways)`}
          className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-accent"
        >
          <table
            aria-busy={url.isPending || undefined}
            className={cn(
              "w-full border-collapse text-sm transition-opacity",
              url.isPending ? "opacity-60" : undefined,
            )}
          >
            <caption className="sr-only">{caption}</caption>
            <thead className="bg-subtle">
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => {
                    const column = header.column;
                    const meta = column.columnDef.meta;
                    const canSort = column.id !== SELECT_COLUMN_ID && sortColumns.includes(column.id);
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        colSpan={header.colSpan > 1 ? header.colSpan : undefined}
                        aria-sort={canSort ? ariaSortOf(column) : undefined}
                        className={cn(
                          "border-b border-line px-2 py-2 text-xs font-semibold whitespace-nowrap text-ink-muted " +
                            "first:pl-3 last:pr-3",
                          alignClass(meta?.align),
                          meta?.headerClassName,
                        )}
                      >
                        {header.isPlaceholder ? null : (
                          <ColumnHeader column={column} canSort={canSort}>
                            {flexRender(column.columnDef.header, header.getContext())}
                          </ColumnHeader>
                        )}
                      </th>
                    );
                  })}
                </tr>
              ))}
            </thead>
            <tbody>
              {table.getRowModel().rows.length === 0 ? (
                <tr>
                  <td colSpan={columnCount}>
                    <EmptyBody
                      narrowed={isNarrowed(state)}
                      pastEnd={total > 0}
                      emptyState={emptyState}
                      onClear={() =>
                        leaveEmptyBody({
                          q: null,
                          page: null,
                          ...Object.fromEntries(Object.keys(state.filters).map((name) => [name, null])),
                        })
                      }
                      onFirstPage={() => leaveEmptyBody({ page: null })}
                    />
                  </td>
                </tr>
              ) : (
                table.getRowModel().rows.map((row) => (
                  <tr
                    key={row.id}
                    data-selected={row.getIsSelected() || undefined}
                    className={cn(
                      "border-b border-line last:border-b-0 hover:bg-subtle/70 data-selected:bg-accent-soft",
                      rowClassName?.(row.original),
                    )}
                  >
                    {row.getVisibleCells().map((cell) => {
                      const meta = cell.column.columnDef.meta;
                      const Cell = meta?.rowHeader ? "th" : "td";
                      return (
                        <Cell
                          key={cell.id}
                          scope={meta?.rowHeader ? "row" : undefined}
                          className={cn(
                            "px-2 py-2 align-top first:pl-3 last:pr-3",
                            meta?.rowHeader ? "font-normal" : undefined,
                            alignClass(meta?.align),
                            meta?.cellClassName,
                          )}
                        >
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </Cell>
                      );
                    })}
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </ScrollRegion>

        <div className="border-t border-line">
          <Pagination page={state.page} pageSize={state.pageSize} total={total} pageSizes={pageSizes} />
        </div>
        <p role="status" className="sr-only">
          {url.isPending ? "Loading rows…" : announcement}
        </p>
      </div>
    </TableUrlProvider>
  );
}

function EmptyBody({
  narrowed,
  pastEnd,
  emptyState,
  onClear,
  onFirstPage,
}: {
  narrowed: boolean;
  pastEnd: boolean;
  emptyState: ReactNode;
  onClear: () => void;
  onFirstPage: () => void;
}) {
  if (pastEnd) {
    return (
      <TableEmptyState
        title="This page is past the last page"
        action={
          <Button size="sm" onClick={onFirstPage}>
            Go to the first page
          </Button>
        }
      />
    );
  }
  if (narrowed) {
    return (
      <TableEmptyState
        title="No rows match"
        action={
          <Button size="sm" onClick={onClear}>
            Clear search and filters
          </Button>
        }
      >
        Check the spelling, or clear the search and filters to see every row.
      </TableEmptyState>
    );
  }
  return emptyState ?? <TableEmptyState title="Nothing here yet" />;
}
