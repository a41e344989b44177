"use client";

import { useEffect, useState } from "react";
import { formatUtcDateTime, parseIsoUtc } from "@/lib/format";
import { cn } from "../cn";
import { Tooltip } from "./tooltip";

export type DateTimeProps = {
  /** An ISO 8601 timestamp; one without an offset is read as UTC. */
  value: string;
  dateOnly?: boolean;
  seconds?: boolean;
  /**
   * Make the time a tab stop whose tooltip (the reader's local time) also opens on keyboard focus.
   * Turn off in dense tables where every row would add a tab stop; the local time stays in `title` for hover.
   */
  focusable?: boolean;
  className?: string;
};

// dateStyle/timeStyle cannot be combined with timeZoneName (a RangeError), so the fields are spelled out.
const LOCAL_FORMAT: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short",
};

/**
 * A timestamp shown in UTC ("2026-03-01 14:05 UTC"), with the reader's local time on hover and focus.
 * The server and the first client render print only UTC; the local time is computed after mount, so the two
 * renders match and there is no hydration warning.
 */
export function DateTime({ value, dateOnly = false, seconds = false, focusable = true, className }: DateTimeProps) {
  const utc = formatUtcDateTime(value, { dateOnly, seconds });
  const [local, setLocal] = useState<string | null>(null);

  useEffect(() => {
    const ms = parseIsoUtc(value);
    if (ms === null || dateOnly) return;
    setLocal(`Your time: ${new Intl.DateTimeFormat(undefined, LOCAL_FORMAT).format(new Date(ms))}`);
  }, [value, dateOnly]);

  if (utc === null) return <span className={className}>{value}</span>;
  const iso = new Date(parseIsoUtc(value) ?? 0).toISOString();

  const time = (
    <time
      dateTime={dateOnly ? iso.slice(0, 10) : iso}
      title={focusable ? undefined : (local ?? undefined)}
      tabIndex={focusable && local ? 0 : undefined}
      className={cn("whitespace-nowrap tabular-nums", focusable && local ? "rounded-sm" : undefined, className)}
    >
      {utc}
    </time>
  );
  if (!focusable || !local) return time;
  return <Tooltip content={local}>{time}</Tooltip>;
}
