"use client";

import { useActionState } from "react";
import { SubmitButton } from "../forms/submit-button";
import type { ShellAction, ShellActionState } from "./shell-action";

/** Sign out: a form posting to the sign-out server action (works without JavaScript). */
export function SignOutForm({ action }: { action: ShellAction }) {
  // The server action itself goes to the form (no client wrapper), so the form works before hydration.
  const [state, formAction] = useActionState<ShellActionState, FormData>(action, null);
  return (
    <form action={formAction}>
      <SubmitButton variant="secondary" size="sm" pendingLabel="Signing out…" className="w-full">
        Sign out
      </SubmitButton>
      {state && !state.ok ? (
        <p role="alert" className="mt-1 text-xs font-medium text-danger">
          {state.message ?? "Could not sign out; try again."}
        </p>
      ) : null}
    </form>
  );
}
