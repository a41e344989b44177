import { addMonths, monthKeyOf, monthWindow, type TimeWindow } from "@/lib/time";
import type { GameAutomation } from "./settings";

/**
 * Which scheduled pulls are due at an instant (pure). The month that just closed is due on the first day of a month,
 * or within the next days when the server was down on the first; the month so far is due once a day.
 */
export const PREVIOUS_MONTH_CATCH_UP_DAYS = 3;

export type DuePull = { kind: "previous_month" | "current_month"; periodKey: string; window: TimeWindow };

export function duePulls(nowMs: number, automation: GameAutomation): DuePull[] {
  const now = new Date(nowMs);
  const month = monthKeyOf(nowMs);
  const due: DuePull[] = [];
  if (automation.pullPreviousMonth && now.getUTCDate() <= PREVIOUS_MONTH_CATCH_UP_DAYS) {
    const previous = addMonths(month, -1);
    due.push({ kind: "previous_month", periodKey: previous, window: monthWindow(previous) });
  }
  if (automation.pullCurrentMonthDaily) {
    // The whole calendar month, so each daily pull is a new version of the window month-end review reads.
    due.push({ kind: "current_month", periodKey: now.toISOString().slice(0, 10), window: monthWindow(month) });
  }
  return due;
}
