"use client";

import { useActionState, useRef } from "react";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { AmountInput } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/** `savedAt`: when the limit shown was saved ("" for the default), sent back so a later save by another refuses. */
export function SupportLimitForm({ action, current, savedAt }: { action: Action; current: string; savedAt: string }) {
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
      className="flex max-w-md flex-col gap-4"
      noValidate
      aria-label="Support refund limit"
    >
      <ResultMessage result={state} />
      <input type="hidden" name="drawnAt" value={savedAt} />
      <Field
        label="Largest refund support may make (USD)"
        hint={
          "Per period, in total: every refund support makes on a billing period counts, so several partials " +
          "cannot add up to more. Beyond it, a finance or admin user refunds; the change is recorded in the audit " +
          "log."
        }
        error={errors.amountUsd}
        required
      >
        {(control) => <AmountInput {...control} name="amountUsd" defaultValue={values.amountUsd ?? current} />}
      </Field>
      <div>
        <SubmitButton pendingLabel="Saving…">Save limit</SubmitButton>
      </div>
    </form>
  );
}
