import type { TimeWindow } from "@/core/time";

/** The window of a row with window_start and window_end columns. */
export function windowOf(row: { window_start: Date; window_end: Date }): TimeWindow {
  return { startMs: row.window_start.getTime(), endMs: row.window_end.getTime() };
}
