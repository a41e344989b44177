"use client";

import { useId, useState } from "react";
import { useTableUrl } from "@/app/_components/data-table/use-table-url";
import { Input } from "@/app/_components/forms/input";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Event time as two UTC days (both inclusive), written to `from` and `to` in the URL. */
export function DayRangeFilter() {
  return (
    <fieldset className="flex items-end gap-2">
      <legend className="sr-only">Event time, UTC days</legend>
      <DayInput name="from" label="From (UTC)" />
      <DayInput name="to" label="To (UTC, inclusive)" />
    </fieldset>
  );
}

/**
 * One day of the range. A day typed digit by digit passes through whole dates on its way (0002-, 0020-, 0202-, then
 * 2026-): the table follows once the year is this century's, or on Enter or leaving the field (which also applies a
 * cleared day), never on every keystroke.
 */
function DayInput({ name, label }: { name: "from" | "to"; label: string }) {
  const { params, setParams } = useTableUrl();
  const id = useId();
  const applied = params.get(name) ?? "";
  const [typed, setTyped] = useState(applied);
  // The filters changed elsewhere (cleared, a link followed): the field shows them.
  const [shown, setShown] = useState(applied);
  if (applied !== shown) {
    setShown(applied);
    setTyped(applied);
  }
  const apply = (value: string) => {
    const day = DAY.test(value) ? value : "";
    if (day !== applied) setParams({ [name]: day || null, page: null });
  };
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-ink-muted">
        {label}
      </label>
      <Input
        id={id}
        type="date"
        className="w-40"
        value={typed}
        onChange={(e) => {
          setTyped(e.target.value);
          if (DAY.test(e.target.value) && e.target.value >= "2000-01-01") apply(e.target.value);
        }}
        onBlur={() => apply(typed)}
        onKeyDown={(e) => {
          if (e.key === "Enter") apply(typed);
        }}
      />
    </div>
  );
}
