"use client";

import { useActionState, useRef } from "react";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Textarea } from "@/app/_components/forms/textarea";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function StatementSettingsForm({
  action,
  current,
  drawn,
}: {
  action: Action;
  current: { studioName: string; studioAddress: string; linkDays: number };
  /** What the page showed of the saved settings, sent back: a save made since by someone else refuses this one. */
  drawn: string;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  return (
    <form
      ref={formRef}
      action={formAction}
      className="flex max-w-lg flex-col gap-4"
      noValidate
      aria-label="Statement settings"
    >
      <ResultMessage result={state} />
      <input type="hidden" name="drawn" value={drawn} />
      <Field label="Studio name" hint="Printed at the top of every statement." error={errors.studioName} required>
        {(control) => (
          <Input
            {...control}
            name="studioName"
            autoComplete="organization"
            maxLength={200}
            defaultValue={values.studioName ?? current.studioName}
          />
        )}
      </Field>
      <Field label="Studio address" hint="Printed under the name." error={errors.studioAddress}>
        {(control) => (
          <Textarea
            {...control}
            name="studioAddress"
            maxLength={500}
            rows={3}
            defaultValue={values.studioAddress ?? current.studioAddress}
          />
        )}
      </Field>
      <Field
        label="Statement links are valid for (days)"
        hint="How long the download link in a statement email works. Finance can revoke a batch's links at any time."
        error={errors.linkDays}
        required
      >
        {(control) => (
          <Input
            {...control}
            name="linkDays"
            inputMode="numeric"
            autoComplete="off"
            defaultValue={values.linkDays ?? String(current.linkDays)}
            className="max-w-24"
          />
        )}
      </Field>
      <div>
        <SubmitButton pendingLabel="Saving…">Save statement settings</SubmitButton>
      </div>
    </form>
  );
}
