"use client";

import { useActionState } from "react";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Props = { action: (state: ActionResult | null, form: FormData) => Promise<ActionResult>; next: string };

export function SignInForm({ action, next }: Props) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <input type="hidden" name="next" value={next} />
      <ResultMessage result={state && !state.ok ? state : null} />
      <Field label="Email" id="email" required error={errors.email}>
        {(control) => (
          <Input
            {...control}
            name="email"
            defaultValue={values.email}
            type="email"
            autoComplete="username"
            required
            autoFocus
          />
        )}
      </Field>
      <Field label="Password" id="password" required error={errors.password}>
        {(control) => <Input {...control} name="password" type="password" autoComplete="current-password" required />}
      </Field>
      <SubmitButton className="w-full">Sign in</SubmitButton>
    </form>
  );
}
