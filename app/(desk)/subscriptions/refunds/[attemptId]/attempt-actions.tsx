"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useActionState, useEffect, useRef, useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { Card } from "@/app/_components/ui/card";
import { FocusHere } from "@/app/_components/ui/focus-here";
import type { ActionResult } from "@/lib/actions";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { RadioChoice } from "@/app/_components/forms/radio-choice";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";
import { retryAnsweredWell } from "@/lib/refunds/retry-answer";

type Action = (state: ActionResult<unknown> | null, form: FormData) => Promise<ActionResult<unknown>>;

/**
 * Calls the service again for a pending refund, with its stored request id and parameters. It stays in place once the
 * attempt is no longer pending (the page then offers no retry): what the retry answered is shown there, and the focus,
 * which was on the button, moves to it.
 */
export function RetryForm({
  attemptId,
  action,
  pending,
  gameId,
}: {
  attemptId: string;
  action: Action;
  pending: boolean;
  gameId: string;
}) {
  const router = useRouter();
  const [state, formAction] = useActionState(async (previous: ActionResult<unknown> | null, form: FormData) => {
    const result = await keepTyped(action)(previous, form);
    router.refresh();
    return result;
  }, null);
  const tone = retryAnsweredWell(state) ? "success" : "error";
  if (!pending)
    return state ? (
      <FocusHere>
        <FormMessage tone={tone}>{state.message}</FormMessage>
      </FocusHere>
    ) : null;
  return (
    <Card title="Retry">
      <form action={formAction} className="flex flex-col gap-2">
        <ShownGameField gameId={gameId} />
        <input type="hidden" name="attemptId" value={attemptId} />
        <ResultMessage result={state} tone={tone} />
        <div>
          <SubmitButton variant="secondary" pendingLabel="Asking the service…">
            Retry now with the same request id
          </SubmitButton>
        </div>
      </form>
    </Card>
  );
}

/** What finance says the service confirmed of an attempt that needed manual attention. */
const OUTCOMES = [
  { value: "refunded", label: "Yes, it was refunded (counts as refunded; it cannot be made again)" },
  { value: "not_refunded", label: "No, nothing was refunded (the same refund can be made again)" },
] as const;

/**
 * Stays in place once the attempt is settled (the page then offers nothing to settle): what was recorded is shown
 * there, and the focus, which was on the button, moves to it.
 */
export function ResolveForm({
  attemptId,
  action,
  gameId,
  open,
}: {
  attemptId: string;
  action: Action;
  gameId: string;
  /** Whether the attempt still needs settling. */
  open: boolean;
}) {
  const router = useRouter();
  // Set by "Yes, nothing was refunded" for the press it makes alone: the next one asks again.
  const confirming = useRef(false);
  const [state, formAction, saving] = useActionState(async (previous: ActionResult<unknown> | null, form: FormData) => {
    if (confirming.current) form.set("confirm", "confirmed");
    confirming.current = false;
    const result = await keepTyped(action)(previous, form);
    if (result.ok) router.refresh();
    return result;
  }, null);
  const error = state && !state.ok ? state.fieldErrors?.note : null;
  const outcomeError = state && !state.ok ? state.fieldErrors?.outcome : null;
  const typedOutcome = state && !state.ok ? state.values?.outcome : undefined;
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, state);
  // "Nothing was refunded" lets the same refund be made again: asked once more, here, before anything is sent.
  const [asking, setAsking] = useState(false);
  const confirmNothing = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  /** Set by "Go back" alone: changing the answer meanwhile leaves the focus on the radio it is on. */
  const backToAsk = useRef(false);
  useEffect(() => {
    if (asking) confirmNothing.current?.focus();
    else if (backToAsk.current) {
      backToAsk.current = false;
      ask.current?.focus();
    }
  }, [asking]);
  // A refusal (a field to correct) takes the question away, leaving the focus where the refusal puts it.
  useEffect(() => {
    if (state && !state.ok) setAsking(false);
  }, [state]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (new FormData(event.currentTarget).get("outcome") === "not_refunded" && !confirming.current) {
      event.preventDefault();
      setAsking(true);
    }
  };
  if (!open)
    return state ? (
      <FocusHere>
        <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
      </FocusHere>
    ) : null;
  return (
    <Card
      title="Settle with the service"
      description="Check with the service (quote the error id) what happened to this refund, then record it."
    >
      <form
        ref={formRef}
        action={formAction}
        onSubmit={onSubmit}
        className="flex flex-col gap-3"
        aria-label="Mark as settled"
      >
        <ShownGameField gameId={gameId} />
        <input type="hidden" name="attemptId" value={attemptId} />
        {state && (state.ok || (!error && !outcomeError)) ? (
          <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
        ) : null}
        <RadioChoice
          legend="Did the service refund it?"
          name="outcome"
          options={OUTCOMES}
          value={typedOutcome === "refunded" || typedOutcome === "not_refunded" ? typedOutcome : undefined}
          onChange={() => setAsking(false)}
          required
          error={outcomeError}
        />
        <Field
          label="What the service confirmed"
          error={error}
          required
          hint="Kept with the attempt and in the audit log."
        >
          {(control) => (
            <Textarea
              {...control}
              name="note"
              maxLength={1000}
              defaultValue={state && !state.ok ? state.values?.note : undefined}
            />
          )}
        </Field>
        {asking ? (
          <fieldset className="flex flex-col gap-2">
            <legend className="text-sm text-ink">
              Nothing was refunded? Support can then make the same refund again: if the service did refund it after all,
              the customer is refunded twice.
            </legend>
            <div className="flex gap-2">
              {/* Not a submit button: Enter on a radio while asked does not answer for the person. */}
              <Button
                ref={confirmNothing}
                variant="primary"
                pending={saving}
                pendingLabel="Saving…"
                onClick={() => {
                  confirming.current = true;
                  formRef.current?.requestSubmit();
                }}
              >
                Yes, nothing was refunded
              </Button>
              <Button
                type="button"
                variant="secondary"
                onClick={() => {
                  backToAsk.current = true;
                  setAsking(false);
                }}
              >
                Go back
              </Button>
            </div>
          </fieldset>
        ) : (
          <div>
            <SubmitButton ref={ask} pendingLabel="Saving…">
              Mark as settled
            </SubmitButton>
          </div>
        )}
      </form>
    </Card>
  );
}
