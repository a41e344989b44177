"use client";

import { useActionState, useRef } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Textarea } from "@/app/_components/forms/textarea";
import { FocusHere } from "@/app/_components/ui/focus-here";
import type { ActionResult } from "@/lib/action-result";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/** Close (or reopen) the window, with the reason written down; the reason stays in the box when refused. */
export function ClosingForm({
  action,
  gameId,
  windowKey,
  closed,
}: {
  action: Action;
  gameId: string;
  windowKey: string;
  closed: boolean;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const verb = closed ? "Reopen" : "Close";
  // A refusal of the other change (a colleague closed or reopened the window first, the page drawn again) keeps its
  // message but not its reason: written to close, it must not stand ready to reopen.
  const direction = closed ? "reopen" : "close";
  const refused = state && !state.ok ? (state.values ?? {}) : {};
  const values = refused.direction === undefined || refused.direction === direction ? refused : {};
  const formRef = useRef<HTMLFormElement>(null);
  // A reason refused takes focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  return (
    <form
      ref={formRef}
      action={formAction}
      className="flex max-w-xl flex-col gap-3"
      noValidate
      aria-label={`${verb} the window`}
    >
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="window" value={windowKey} />
      <input type="hidden" name="direction" value={direction} />
      {state?.ok ? (
        // The form now offers the opposite change (its button is another): focus moves to what was done.
        <FocusHere key={state.message}>
          <FormMessage tone="success">{state.message}</FormMessage>
        </FocusHere>
      ) : (
        <ResultMessage result={state} />
      )}
      <Field
        label={closed ? "Why reopen it" : "Why close it"}
        hint="Kept with the window and in the audit log."
        error={errors.reason}
        required
      >
        {(control) => (
          <Textarea
            {...control}
            name="reason"
            defaultValue={values.reason ?? ""}
            key={state?.ok ? "sent" : `typing-${direction}`}
          />
        )}
      </Field>
      <div>
        <SubmitButton pendingLabel={closed ? "Reopening…" : "Closing…"}>{verb} the window</SubmitButton>
      </div>
    </form>
  );
}
