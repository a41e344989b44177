"use client";

import { useId } from "react";
import { useTableUrl } from "@/app/_components/data-table/use-table-url";
import { Input } from "@/app/_components/forms/input";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Event time as two UTC days (both inclusive), written to `from` and `to` in the URL. */
export function DayRangeFilter() {
  const { params, setParams } = useTableUrl();
  const fromId = useId();
  const toId = useId();
  const set = (name: "from" | "to", value: string) => setParams({ [name]: DAY.test(value) ? value : null, page: null });
  return (
    <fieldset className="flex items-end gap-2">
      <legend className="sr-only">Event time, UTC days</legend>
      <div className="flex flex-col gap-1">
        <label htmlFor={fromId} className="text-xs font-medium text-ink-muted">
          From (UTC)
        </label>
        <Input
          id={fromId}
          type="date"
          className="w-40"
          value={params.get("from") ?? ""}
          onChange={(e) => set("from", e.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={toId} className="text-xs font-medium text-ink-muted">
          To (UTC, inclusive)
        </label>
        <Input
          id={toId}
          type="date"
          className="w-40"
          value={params.get("to") ?? ""}
          onChange={(e) => set("to", e.target.value)}
        />
      </div>
    </fieldset>
  );
}
