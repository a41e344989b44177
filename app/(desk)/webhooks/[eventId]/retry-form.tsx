"use client";

import { useActionState } from "react";
import { FormMessage } from "@/app/_components/forms/form-message";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { FocusHere } from "@/app/_components/ui/focus-here";
import type { ActionResult } from "@/lib/actions";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/**
 * "Process again" for a failed event. It stays in place once the event is queued (the page then shows it pending and
 * offers no button): what it answered is shown there, and the focus, which was on the button, moves to it.
 */
export function RetryForm({
  action,
  eventId,
  failed,
  gameId,
}: {
  action: Action;
  eventId: string;
  failed: boolean;
  gameId: string;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  if (!failed)
    return state ? (
      <FocusHere className="mb-4">
        <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
      </FocusHere>
    ) : null;
  return (
    <form action={formAction} className="mb-4 flex flex-col items-start gap-2" aria-label="Process the event again">
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="eventId" value={eventId} />
      <SubmitButton size="sm">Process again</SubmitButton>
      <ResultMessage result={state} />
    </form>
  );
}
