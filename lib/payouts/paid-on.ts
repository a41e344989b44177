import { AppError } from "@/lib/errors";
import { MS_PER_DAY } from "@/lib/time";

/**
 * The first day a payment can be recorded as paid once `since` has happened (the window's start, the payment file
 * made): its UTC day, less one for a person whose day is behind UTC's. An earlier day is a year or month typed wrong:
 * it would post the payment before what it pays for, maybe into a year already closed.
 */
export function firstPaidOn(since: Date): string {
  return new Date(since.getTime() - MS_PER_DAY).toISOString().slice(0, 10);
}

/** Refuses, on the `paidOn` field, a day before `what` happened (`since`). */
export function refusePaidOnBefore(paidOn: string, since: Date, what: string): void {
  if (paidOn >= firstPaidOn(since)) return;
  throw new AppError("INVALID_INPUT", `is before ${what} on ${since.toISOString().slice(0, 10)}`, {
    field: "paidOn",
  });
}

/** Today in UTC, YYYY-MM-DD. */
export const utcToday = (): string => new Date().toISOString().slice(0, 10);

/**
 * The day a payment is recorded as paid, the day the money left: the date the importer gives; else the file's
 * requested execution date once it has come; else the day of the import (results files carry no date of their own).
 */
export function paidOnFor(given: string | undefined, executionDate: string | null, today: string): string {
  if (given) return given;
  return executionDate && executionDate <= today ? executionDate : today;
}
