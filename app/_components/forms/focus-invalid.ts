import { type RefObject, useEffect } from "react";

/**
 * After each answer (`answer` changes), moves focus to the form's first field marked invalid, so that a keyboard or
 * screen reader user lands on it and hears its label and error (linked by aria-describedby) where a refusal is said
 * on a field rather than in an announced message. Nothing moves when no field is invalid.
 */
export function useFocusFirstInvalid(form: RefObject<HTMLFormElement | null>, answer: unknown): void {
  useEffect(() => {
    if (!answer) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [form, answer]);
}
