"use client";

import { useId } from "react";
import { Select, type SelectOption } from "../forms/select";
import { useSelectOnCommit } from "./use-select-on-commit";
import { useTableUrl } from "./use-table-url";

export type FilterSelectProps = {
  /** URL parameter, the filter's name in the table state definition. */
  name: string;
  label: string;
  options: SelectOption[];
  /** Label of the "no filter" option. */
  allLabel?: string;
};

/**
 * A filter for the table toolbar: a labelled native select writing its value to the URL (page back to 1). Chosen with
 * the mouse it applies at once; moved through with the arrow keys (which change a closed select's value option by
 * option) it applies on Enter or when focus leaves it, not once per option passed (WCAG 3.2.2).
 */
export function FilterSelect({ name, label, options, allLabel = "All" }: FilterSelectProps) {
  const { params, setParams } = useTableUrl();
  const id = useId();
  const current = params.get(name) ?? "";
  const select = useSelectOnCommit(current, (value) => setParams({ [name]: value || null, page: null }));
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-ink-muted">
        {label}
      </label>
      <Select id={id} className="w-44" {...select} placeholder={allLabel} options={options} />
    </div>
  );
}
