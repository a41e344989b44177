import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "../cn";
import { FieldNotes } from "./field";

export type CheckboxProps = Omit<ComponentProps<"input">, "type"> & {
  label: string;
  hint?: ReactNode;
  error?: string | null;
};

/** A native checkbox with its label beside it (Space toggles it); hint and error linked like <Field>. */
export function Checkbox({ label, hint, error, id, className, ...props }: CheckboxProps) {
  const generated = useId();
  const inputId = id ?? `checkbox-${generated}`;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  return (
    <div className={cn("flex items-start gap-2", className)}>
      <input
        id={inputId}
        type="checkbox"
        aria-describedby={[errorId, hintId].filter(Boolean).join(" ") || undefined}
        aria-invalid={error ? true : undefined}
        className="mt-0.5 size-4 shrink-0 rounded border-line-strong"
        {...props}
      />
      <div className="flex flex-col gap-0.5">
        <label htmlFor={inputId} className="text-sm text-ink">
          {label}
        </label>
        <FieldNotes label={label} hint={hint} hintId={hintId} error={error} errorId={errorId} />
      </div>
    </div>
  );
}
