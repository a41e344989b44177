"use client";

import { useActionState } from "react";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";

export type ClearAction = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/** One "Clear" button: forgets the failed sign-ins of an account or an address (audited). */
export function ClearSignInLimitForm({ action, kind, value, label }: { action: ClearAction; kind: "account" | "address"; value: string; label: string }) {
  const [state, formAction] = useActionState(action, null);
  return (
    <form action={formAction} className="flex flex-wrap items-center justify-end gap-2">
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="value" value={value} />
      <SubmitButton variant="secondary" size="sm" aria-label={label}>
        Clear
      </SubmitButton>
      {state && (
        <span role={state.ok ? "status" : "alert"} className={state.ok ? "text-xs text-success" : "text-xs text-danger"}>
          {state.message}
        </span>
      )}
    </form>
  );
}
