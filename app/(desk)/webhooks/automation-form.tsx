"use client";

import { useActionState } from "react";
import { Checkbox } from "@/app/_components/forms/checkbox";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/action-result";
import type { GameAutomation } from "@/lib/webhooks/settings";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function AutomationForm({
  action,
  automation,
  canEdit,
  gameId,
}: {
  action: Action;
  automation: GameAutomation;
  canEdit: boolean;
  gameId: string;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  // After a refused save, show what was sent; otherwise what is stored.
  const sent = state && !state.ok ? state.values : undefined;
  const checked = (name: keyof GameAutomation) => (sent ? sent[name] === "on" : automation[name]);
  return (
    <form action={formAction} className="flex flex-col gap-3" aria-label="Automatic pulls">
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="form" value="automation" />
      <ResultMessage result={state} />
      <Checkbox
        name="autoRefresh"
        label="Pull a window again when a webhook makes its snapshot stale"
        hint={
          "A refund or renewal inside a window marks its snapshots stale; with this on, a new version is pulled " +
          "at once."
        }
        defaultChecked={checked("autoRefresh")}
        key={`autoRefresh-${String(checked("autoRefresh"))}`}
        disabled={!canEdit}
      />
      <Checkbox
        name="pullPreviousMonth"
        label="Pull the month that just closed on the first day of each month"
        hint="Month-end review then starts from a fresh snapshot of the closed month (UTC)."
        defaultChecked={checked("pullPreviousMonth")}
        key={`pullPreviousMonth-${String(checked("pullPreviousMonth"))}`}
        disabled={!canEdit}
      />
      <Checkbox
        name="pullCurrentMonthDaily"
        label="Pull the current month once a day"
        defaultChecked={checked("pullCurrentMonthDaily")}
        key={`pullCurrentMonthDaily-${String(checked("pullCurrentMonthDaily"))}`}
        disabled={!canEdit}
      />
      {canEdit ? (
        <div>
          <SubmitButton>Save automatic pulls</SubmitButton>
        </div>
      ) : (
        <p className="text-xs text-ink-muted">Only an admin can change these.</p>
      )}
    </form>
  );
}
