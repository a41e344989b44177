"use client";

import { useId } from "react";
import { Select, type SelectOption } from "../forms/select";
import { useTableUrl } from "./use-table-url";

export type FilterSelectProps = {
  /** URL parameter, the filter's name in the table state definition. */
  name: string;
  label: string;
  options: SelectOption[];
  /** Label of the "no filter" option. */
  allLabel?: string;
};

/** A filter for the table toolbar: a labelled native select writing its value to the URL (page back to 1). */
export function FilterSelect({ name, label, options, allLabel = "All" }: FilterSelectProps) {
  const { params, setParams } = useTableUrl();
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-ink-muted">
        {label}
      </label>
      <Select
        id={id}
        className="w-44"
        value={params.get(name) ?? ""}
        onChange={(event) => setParams({ [name]: event.target.value || null, page: null })}
        placeholder={allLabel}
        options={options}
      />
    </div>
  );
}
