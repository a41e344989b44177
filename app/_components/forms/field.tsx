import { useId, type ReactNode } from "react";
import { fieldErrorText } from "@/lib/format";
import { cn } from "../cn";

/** Props <Field> hands to its control: spread them onto the <Input>, <Select> or <Textarea>. */
export type FieldControlProps = {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
  required?: boolean;
};

export type FieldProps = {
  label: string;
  /** Help under the control ("Shown to finance, kept in the audit log"). */
  hint?: ReactNode;
  /** The validation message for this field, e.g. from a server action's fieldErrors; shown with the field's name. */
  error?: string | null;
  required?: boolean;
  /** Fixed id for the control (otherwise generated). */
  id?: string;
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
};

/**
 * Label + control + hint + error, wired together: the label's htmlFor, aria-describedby to the hint and the error,
 * aria-invalid when there is an error. Works in server and client components.
 *
 *   <Field label="Reason" error={state.fieldErrors?.reason} required>
 *     {(control) => <Textarea name="reason" {...control} />}
 *   </Field>
 */
export function Field({ label, hint, error, required = false, id, className, children }: FieldProps) {
  const generated = useId();
  const controlId = id ?? `field-${generated}`;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;

  return (
    <div className={cn("flex flex-col gap-1", className)}>
      <label htmlFor={controlId} className="text-sm font-medium text-ink">
        {label}
        {required ? (
          <span className="ml-0.5 text-danger" aria-hidden="true">
            *
          </span>
        ) : null}
      </label>
      {children({
        id: controlId,
        "aria-describedby": describedBy,
        "aria-invalid": error ? true : undefined,
        required: required || undefined,
      })}
      <FieldNotes label={label} hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </div>
  );
}

/** A control's hint and error under it, with the ids its aria-describedby names (the error with the field's name). */
export function FieldNotes(props: {
  label: string;
  hint?: ReactNode;
  hintId?: string;
  error?: string | null;
  errorId?: string;
}) {
  return (
    <>
      {props.hint ? (
        <p id={props.hintId} className="text-xs text-ink-muted">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p id={props.errorId} className="text-xs font-medium text-danger">
          {fieldErrorText(props.label, props.error)}
        </p>
      ) : null}
    </>
  );
}
