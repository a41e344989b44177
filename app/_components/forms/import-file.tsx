import { type FormEvent, type ReactNode, startTransition, useActionState, useRef, useState } from "react";
import type { ActionResult } from "@/lib/action-result";
import { keepTyped } from "./keep-typed";
import type { ImportLimit } from "@/lib/import-limits";
import { Button } from "../ui/button";
import { keepEnterFromSubmitting } from "./enter-in-field";
import { Field } from "./field";
import { useFocusFirstInvalid } from "./focus-invalid";

/** What an import does with its file: show what each line would do, or do it. */
export type ImportMode = "dry_run" | "apply";

type ImportAction<T> = (state: ActionResult<T> | null, form: FormData) => Promise<ActionResult<T>>;

/** A UTF-8 file's text has at least a third as many UTF-16 code units as the file has bytes. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * The state of an import form and its submit handler: the file chosen in the form's file input is read in the page
 * and its text sent with the fields `fields(text, mode)` names (nothing is sent, and `missingFile` is shown on the
 * file field, when no file is chosen, or `limit`'s refusal when its text is longer than the action takes). The form
 * is submitted by hand, so nothing it holds is reset by an answer. `state` is the last answer, and null while the
 * next one is awaited; an answer that never came reads as a refusal saying so.
 */
export function useImportForm<T>(
  action: ImportAction<T>,
  options: {
    missingFile: string;
    limit: ImportLimit;
    fields: (text: string, mode: ImportMode) => Record<string, string>;
  },
) {
  const [state, dispatch, pending] = useActionState(keepTyped(action), null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [mode, setMode] = useState<ImportMode>("dry_run");
  // While the file is read, before the action starts: a second press then would send the file twice.
  const [reading, setReading] = useState(false);
  const readingNow = useRef(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (readingNow.current || pending) return;
    const file = (event.currentTarget.elements.namedItem("file") as HTMLInputElement | null)?.files?.[0];
    if (!file) {
      setFileError(options.missingFile);
      return;
    }
    const { chars, message } = options.limit;
    readingNow.current = true;
    setReading(true);
    let text: string | null;
    try {
      // Too large to read at all, or once read: refused here, since the server refuses a form that large unread.
      text = file.size > chars * MAX_BYTES_PER_UNIT ? null : await file.text();
    } finally {
      readingNow.current = false;
      setReading(false);
    }
    if (text === null || text.length > chars) {
      setFileError(message);
      return;
    }
    setFileError(null);
    const data = new FormData();
    for (const [name, value] of Object.entries(options.fields(text, mode))) data.set(name, value);
    startTransition(() => dispatch(data));
  };
  const busy = pending || reading;
  // While a new import runs, the previous answer is not shown: it would read as this one's.
  return { state: busy ? null : state, pending: busy, fileError, mode, setMode, onSubmit };
}

export type ImportFormProps = {
  /** The form's accessible name ("Import payment results"). */
  label: string;
  form: Pick<ReturnType<typeof useImportForm>, "pending" | "fileError" | "mode" | "setMode" | "onSubmit">;
  file: {
    label: string;
    /** The file types offered by the browser's picker (".csv,text/csv"). */
    accept: string;
    hint?: string;
    /** The server's answer about the file's content. */
    error?: string | null;
  };
  /** What a dry run shows and what applying does (each "Dry run: …" / "Apply: …"), and the button in each mode. */
  modes: { dryRun: string; apply: string; submit: Record<ImportMode, string> };
  /** Fields between the file and the mode (the file's format). */
  children?: ReactNode;
};

/**
 * An import form: the file, any fields of its own, the choice between a dry run and applying (native radio buttons
 * in a fieldset: arrow keys move between them) and the submit button, which says what the chosen mode does. The file
 * input is never reset and the mode is kept by useImportForm, so both stay chosen after any answer.
 */
export function ImportForm({ label, form, file, modes, children }: ImportFormProps) {
  const ref = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(ref, form.fileError ?? file.error);
  const options: { value: ImportMode; label: string }[] = [
    { value: "dry_run", label: modes.dryRun },
    { value: "apply", label: modes.apply },
  ];
  return (
    <form
      method="post"
      ref={ref}
      onSubmit={form.onSubmit}
      // Applying changes money or payout details: only its button applies, never Enter in a field (a date typed, a
      // radio button chosen). A dry run changes nothing, so Enter runs one.
      onKeyDown={form.mode === "apply" ? keepEnterFromSubmitting : undefined}
      noValidate
      aria-label={label}
      className="flex max-w-xl flex-col gap-3"
    >
      <Field label={file.label} hint={file.hint} error={form.fileError ?? file.error} required>
        {(control) => <input {...control} name="file" type="file" accept={file.accept} className="text-sm" />}
      </Field>
      {children}
      <fieldset className="flex flex-col gap-1.5">
        <legend className="text-sm font-medium text-ink">What to do</legend>
        {options.map((option) => (
          <label key={option.value} className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="mode"
              value={option.value}
              checked={form.mode === option.value}
              onChange={() => form.setMode(option.value)}
            />
            {option.label}
          </label>
        ))}
      </fieldset>
      <div>
        <Button type="submit" variant="primary" pending={form.pending} pendingLabel="Reading…">
          {modes.submit[form.mode]}
        </Button>
      </div>
    </form>
  );
}
