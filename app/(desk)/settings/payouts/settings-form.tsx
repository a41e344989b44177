"use client";

import { useActionState, useRef } from "react";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { AmountInput } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

const TWO_PERSON_CHOICES = [
  {
    value: "on",
    text:
      "On: a second finance user approves what another prepared, reviews their change of payout details and records " +
      "the return of a payment they recorded (recommended)",
  },
  {
    value: "off",
    text: "Off: one finance user may do all of it alone, their own payout details included (for a team of one)",
  },
] as const;

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function PayoutSettingsForm({
  action,
  current,
}: {
  action: Action;
  /** `savedAt`: when the rules shown were saved ("" for the defaults), sent back so a later save by another refuses. */
  current: { minPayoutUsd: string; twoPersonRule: boolean; savedAt: string };
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const rule = values.twoPersonRule ?? (current.twoPersonRule ? "on" : "off");
  return (
    <form
      ref={formRef}
      action={formAction}
      className="flex max-w-lg flex-col gap-4"
      noValidate
      aria-label="Payout rules"
    >
      <ResultMessage result={state} />
      <input type="hidden" name="drawnAt" value={current.savedAt} />
      <Field
        label="Minimum payout (USD)"
        hint={
          "A payable under this amount rolls to the recipient's next statement. 0 pays any positive amount. " +
          "Applies to batches prepared after the change."
        }
        error={errors.minPayoutUsd}
        required
      >
        {(control) => (
          <AmountInput {...control} name="minPayoutUsd" defaultValue={values.minPayoutUsd ?? current.minPayoutUsd} />
        )}
      </Field>
      <fieldset
        className="flex flex-col gap-1.5"
        aria-describedby={errors.twoPersonRule ? "two-person-rule-error" : undefined}
      >
        <legend className="text-sm font-medium text-ink">Two-person rule</legend>
        {TWO_PERSON_CHOICES.map(({ value, text }) => (
          <label key={value} className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="twoPersonRule"
              value={value}
              defaultChecked={rule === value}
              aria-invalid={errors.twoPersonRule ? true : undefined}
              className="mt-0.5"
            />
            <span>{text}</span>
          </label>
        ))}
        {errors.twoPersonRule ? (
          <p id="two-person-rule-error" className="text-xs font-medium text-danger">
            Two-person rule: {errors.twoPersonRule}
          </p>
        ) : null}
      </fieldset>
      <div>
        <SubmitButton pendingLabel="Saving…">Save payout rules</SubmitButton>
      </div>
    </form>
  );
}
