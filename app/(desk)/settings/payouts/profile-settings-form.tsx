"use client";

import { useActionState } from "react";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function ProfileSettingsForm({ action, requireTaxForm }: { action: Action; requireTaxForm: boolean }) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const rule = values.requireTaxForm ?? (requireTaxForm ? "on" : "off");
  return (
    <form action={formAction} className="flex max-w-lg flex-col gap-4" noValidate aria-label="Tax forms">
      <ResultMessage result={state} />
      <fieldset className="flex flex-col gap-1.5">
        <legend className="text-sm font-medium text-ink">Tax form before paying</legend>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" name="requireTaxForm" value="on" defaultChecked={rule === "on"} className="mt-0.5" />
          <span>Required: a recipient without a valid tax form (W-9, W-8BEN, W-8BEN-E) is flagged</span>
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" name="requireTaxForm" value="off" defaultChecked={rule === "off"} className="mt-0.5" />
          <span>Not required</span>
        </label>
      </fieldset>
      <div>
        <SubmitButton pendingLabel="Saving…">Save tax form rule</SubmitButton>
      </div>
    </form>
  );
}
