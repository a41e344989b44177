import type { KeyboardEvent } from "react";

/**
 * Keeps Enter in one of a form's fields from submitting it (a browser submits a form on Enter in a text, date or
 * radio field): for forms whose submit moves money or details, answered by their button only. Enter on a file field
 * still opens its chooser; a textarea, a select and the buttons are not fields here.
 */
export function keepEnterFromSubmitting(event: KeyboardEvent<HTMLFormElement>): void {
  const field = event.target;
  if (event.key === "Enter" && field instanceof HTMLInputElement && field.type !== "file") event.preventDefault();
}
