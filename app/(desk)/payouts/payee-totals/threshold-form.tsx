"use client";

import { useActionState } from "react";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { AmountInput } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/action-result";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function ThresholdForm({ action, year, current }: { action: Action; year: number; current: string | null }) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  return (
    <form action={formAction} className="flex max-w-md flex-col gap-3" noValidate aria-label="Reporting threshold">
      <input type="hidden" name="year" value={String(year)} />
      <ResultMessage result={state} />
      <Field
        label={`Reporting threshold for ${year} (USD)`}
        hint="A recipient whose net paid in the year reaches it is marked for reporting. The same for every game."
        error={errors.amountUsd ?? errors.year}
        required
      >
        {(control) => <AmountInput {...control} name="amountUsd" defaultValue={values.amountUsd ?? current ?? ""} />}
      </Field>
      <div>
        <SubmitButton pendingLabel="Saving…">Save threshold</SubmitButton>
      </div>
    </form>
  );
}
