import type { ComponentProps } from "react";
import { cn } from "../cn";
import { CONTROL_CLASS } from "./control-styles";

export type SelectOption = { value: string; label: string; disabled?: boolean };

export type SelectProps = ComponentProps<"select"> & {
  /** Options to render; children are rendered after them. */
  options?: SelectOption[];
  /** A first, empty option ("Choose a game"); the select then needs `required` to force a choice. */
  placeholder?: string;
};

/** A native select (keyboard and screen reader behaviour for free), styled to match the inputs. */
export function Select({ className, options, placeholder, children, ...props }: SelectProps) {
  return (
    <div className={cn("relative", className)}>
      <select className={cn(CONTROL_CLASS, "h-8 appearance-none pr-8")} {...props}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options?.map((option) => (
          <option key={option.value} value={option.value} disabled={option.disabled}>
            {option.label}
          </option>
        ))}
        {children}
      </select>
      <svg
        aria-hidden="true"
        viewBox="0 0 16 16"
        className="pointer-events-none absolute top-1/2 right-2.5 size-3.5 -translate-y-1/2 text-ink-muted"
      >
        <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.5" />
      </svg>
    </div>
  );
}
