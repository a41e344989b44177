"use client";

import type { RowSelectionState } from "@tanstack/react-table";
import { type RefObject, useEffect, useRef, useState } from "react";

/**
 * A table's row selection. It belongs to the rows on screen: rows no longer shown (another page, a filter) leave it;
 * those still shown stay selected, so that a page drawn again under an open bulk action's dialog (a refusal) keeps it
 * and what was typed in it. An action done clears the selection itself (`clearSelection`).
 *
 * The control pressed (Clear selection, a bulk action's) goes with the selection: the focus stays on the table's
 * selection line, which says none is selected, rather than falling to the document's start; cleared from a bulk
 * action's dialog, which goes with the selection's bar, the line takes the focus once the dialog has let it go, or
 * `fallback` (the table) when the line went too (the action left no row it could act on).
 */
/** Whether the focus is in a dialog opened from the selection's bar (its trigger, beside `line`, controls it). */
function inBarDialog(line: HTMLElement | null): boolean {
  const dialog = document.activeElement?.closest('[role="dialog"]');
  if (!dialog?.id || !line?.parentElement) return false;
  return line.parentElement.querySelector(`[aria-controls="${CSS.escape(dialog.id)}"]`) !== null;
}

export function useRowSelection<TData>(
  data: readonly TData[],
  getRowId: (row: TData) => string,
  fallback: RefObject<HTMLElement | null>,
) {
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const [selectionData, setSelectionData] = useState(data);
  const selectionLine = useRef<HTMLParagraphElement>(null);
  // Set when the selection empties from a dialog of its bar.
  const focusLineOnceCleared = useRef(false);
  if (selectionData !== data) {
    setSelectionData(data);
    const shown = new Set(data.map((row) => getRowId(row)));
    const kept = Object.fromEntries(Object.entries(rowSelection).filter(([id, on]) => on && shown.has(id)));
    // The rows an action changed left the page (a filter no longer holds them) as it answered, its dialog with them.
    const had = Object.values(rowSelection).some(Boolean);
    if (had && Object.keys(kept).length === 0 && inBarDialog(selectionLine.current))
      focusLineOnceCleared.current = true;
    setRowSelection(kept);
  }
  const selectedIds = Object.keys(rowSelection).filter((id) => rowSelection[id]);
  const noneSelected = selectedIds.length === 0;
  useEffect(() => {
    if (!noneSelected || !focusLineOnceCleared.current) return;
    focusLineOnceCleared.current = false;
    const timer = window.setTimeout(() => (selectionLine.current ?? fallback.current)?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [noneSelected, fallback]);
  const clearSelection = () => {
    const line = selectionLine.current;
    const active = document.activeElement;
    if (line?.parentElement?.contains(active) && active !== line) line.focus();
    else if (inBarDialog(line)) focusLineOnceCleared.current = true;
    setRowSelection({});
  };
  return { rowSelection, setRowSelection, selectedIds, selectionLine, clearSelection };
}
