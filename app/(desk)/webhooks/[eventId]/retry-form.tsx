"use client";

import { useActionState } from "react";
import { FormMessage } from "@/app/_components/forms/form-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/actions";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function RetryForm({ action, eventId }: { action: Action; eventId: string }) {
  const [state, formAction] = useActionState(action, null);
  return (
    <form action={formAction} className="flex flex-col items-end gap-2">
      <input type="hidden" name="eventId" value={eventId} />
      <SubmitButton size="sm">Process again</SubmitButton>
      {state ? <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage> : null}
    </form>
  );
}
