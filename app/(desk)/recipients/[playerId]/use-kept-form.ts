"use client";

import { type FormEvent, startTransition, useActionState, useRef } from "react";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import type { ActionResult } from "@/lib/action-result";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/**
 * A form submitted by hand, so React does not reset it: after any error every field still holds what was typed
 * (payout details are never sent back by the server, so the page keeps them itself), and the first field refused
 * takes the focus (`formRef` on the form).
 */
export function useKeptForm(action: Action) {
  const [state, dispatch, pending] = useActionState(keepTyped(action), null);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    if (submitter instanceof HTMLButtonElement && submitter.name) data.set(submitter.name, submitter.value);
    startTransition(() => dispatch(data));
  };
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  return { state, pending, onSubmit, errors, formRef };
}
