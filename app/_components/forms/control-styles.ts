/** Shared look of text inputs, selects and textareas; red border when aria-invalid is set by <Field>. */
export const CONTROL_CLASS =
  "block w-full rounded-md border border-line-strong bg-surface px-2.5 text-sm text-ink placeholder:text-ink-muted " +
  "disabled:cursor-not-allowed disabled:bg-subtle disabled:text-ink-muted " +
  "aria-[invalid=true]:border-danger aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-danger";
