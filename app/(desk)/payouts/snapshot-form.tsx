"use client";

import { useRouter } from "next/navigation";
import { useActionState, useCallback, useEffect, useState, useRef } from "react";
import { Field } from "@/app/_components/forms/field";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { RadioChoice } from "@/app/_components/forms/radio-choice";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Button } from "@/app/_components/ui/button";
import { Dialog, DialogClose, DialogFooter } from "@/app/_components/ui/dialog";
import type { ActionResult } from "@/lib/action-result";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Queued = { pullId: string; deduplicated: boolean };
type Action = (state: ActionResult<Queued> | null, form: FormData) => Promise<ActionResult<Queued>>;

/**
 * "Take snapshot": a month, or any window (start inclusive, end exclusive, UTC unless an offset is typed). The pull
 * runs in the background; its progress appears on the page as soon as it is queued.
 */
export function TakeSnapshotButton({
  action,
  defaultMonth,
  gameId,
}: {
  action: Action;
  defaultMonth: string;
  gameId: string;
}) {
  const [open, setOpen] = useState(false);
  // A fresh form every time the dialog opens: an answer to an earlier try is not shown again.
  const [round, setRound] = useState(0);
  const router = useRouter();
  // What the request did, read out once the dialog closes (the status region is in the page from the start, so its
  // change is read). Shown too when it joined a pull already under way: that pull may have begun reading before the
  // change that prompted the request (it is then marked stale, and taken again).
  const [said, setSaid] = useState<{ text: string; shown: boolean } | null>(null);
  const onQueued = useCallback(
    (result: { message?: string; data?: { deduplicated?: boolean } }) => {
      setOpen(false);
      setSaid(result.message ? { text: result.message, shown: result.data?.deduplicated === true } : null);
      router.refresh();
    },
    [router],
  );

  return (
    <>
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (next) setRound((n) => n + 1);
          setOpen(next);
        }}
        trigger={<Button variant="primary">Take snapshot</Button>}
        title="Take a snapshot"
        description={
          "Pulls every recipient, renewal line and reversal of the window from the service and freezes them " +
          "as a new version."
        }
      >
        <SnapshotForm key={round} action={action} defaultMonth={defaultMonth} gameId={gameId} onQueued={onQueued} />
      </Dialog>
      <p role="status" className={said?.shown ? "max-w-xs text-xs text-ink-muted" : "sr-only"}>
        {said?.text}
      </p>
    </>
  );
}

const WINDOW_MODES = [
  { value: "month", label: "A month (UTC)" },
  { value: "custom", label: "Any window" },
] as const;

function SnapshotForm(props: {
  action: Action;
  defaultMonth: string;
  gameId: string;
  onQueued: (result: { message?: string; data?: { deduplicated?: boolean } }) => void;
}) {
  const { action, defaultMonth, gameId, onQueued } = props;
  const [mode, setMode] = useState<"month" | "custom">("month");
  const [state, formAction] = useActionState(keepTyped(action), null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};

  useEffect(() => {
    if (state?.ok) onQueued(state);
  }, [state, onQueued]);

  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  return (
    <form ref={formRef} action={formAction} noValidate aria-label="Snapshot window" className="flex flex-col gap-4">
      <ShownGameField gameId={gameId} />
      <ResultMessage result={state && !state.ok ? state : null} />
      <RadioChoice legend="Window" name="mode" options={WINDOW_MODES} value={mode} onChange={setMode} />
      {mode === "month" ? (
        <Field label="Month" id="snapshot-month" hint="The whole calendar month in UTC." error={errors.month} required>
          {(control) => <Input {...control} name="month" type="month" defaultValue={values.month ?? defaultMonth} />}
        </Field>
      ) : (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Start"
            id="snapshot-start"
            hint="Inclusive: 2026-03-01 or 2026-03-01T12:00:00Z."
            error={errors.start}
            required
          >
            {(control) => (
              <Input
                {...control}
                name="start"
                defaultValue={values.start}
                autoComplete="off"
                placeholder="2026-03-01"
              />
            )}
          </Field>
          <Field
            label="End"
            id="snapshot-end"
            hint="Exclusive; at most 400 days after the start."
            error={errors.end}
            required
          >
            {(control) => (
              <Input {...control} name="end" defaultValue={values.end} autoComplete="off" placeholder="2026-04-01" />
            )}
          </Field>
        </div>
      )}
      <DialogFooter className="-mx-4 -mb-3">
        <DialogClose asChild>
          <Button>Cancel</Button>
        </DialogClose>
        <SubmitButton>Take snapshot</SubmitButton>
      </DialogFooter>
    </form>
  );
}
