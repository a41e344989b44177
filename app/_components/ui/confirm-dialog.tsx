"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { GAME_SWITCHED, isFrameworkNavigation, UNANSWERED_ACTION } from "@/lib/action-result";
import { FormMessage } from "../forms/form-message";
import { keepEnterFromSubmitting } from "../forms/enter-in-field";
import { useFocusFirstInvalid } from "../forms/focus-invalid";
import { ShownGameField } from "../forms/shown-game";
import { Button } from "./button";
import { Dialog, DialogClose, DialogFooter } from "./dialog";
import { keepFocusInPage, useAlertWhenGone } from "./page-alert";

/** What the confirmed action returns: the small result object every server action gives back (lib/actions.ts). */
export type ConfirmResult =
  | { ok: true; message?: string }
  | {
      ok: false;
      message: string;
      code?: string;
      values?: Record<string, string>;
      fieldErrors?: Record<string, string>;
    };

/** What was typed into the dialog's fields when the action refused it (empty before that). */
export type TypedValues = Record<string, string>;
/** The action's refusal of each field, by name, for the dialog's <Field error> (empty before that). */
export type FieldErrors = Record<string, string>;

export type ConfirmDialogProps = {
  /** The button that opens the dialog. */
  trigger: ReactNode;
  title: ReactNode;
  description?: ReactNode;
  /** The summary of what will happen ("Approve 212 payouts, USD 48,120.00 in total"), and any fields the action
   * reads (a reason <Field>): everything here is inside the form. As a function it is given what was typed when the
   * action refused it, for the fields' defaultValue (React resets a form after its action, error or not), and the
   * refusal of each field, for its <Field error>: tied to the control, not only said under the form. */
  children?: ReactNode | ((typed: TypedValues, errors: FieldErrors) => ReactNode);
  confirmLabel: string;
  pendingLabel?: string;
  cancelLabel?: string;
  tone?: "primary" | "danger";
  /** A server action (or a function calling one). Resolving with { ok: false } keeps the dialog open with the error. */
  action: (formData: FormData) => Promise<ConfirmResult | undefined>;
  /** Sent along with the form, e.g. { batchId }. */
  hiddenFields?: Record<string, string>;
  /** The game the page was shown for, when the action is about one: a game switched in another tab since is then
   * refused in so many words, not as an id the other game does not have. Taken from the page, never the layout. */
  gameId?: string;
  onConfirmed?: (result: ConfirmResult | undefined) => void;
  size?: "sm" | "md" | "lg";
};

/**
 * Asks before an action that changes money or state. The confirm button shows progress and cannot be pressed twice;
 * the dialog cannot be dismissed while the action runs; an error keeps the dialog open and is read out. A refusal
 * because what the page showed has moved on (CONFLICT: a colleague acted first) draws the page again behind the open
 * dialog, which then shows what would be confirmed next, or, when the page no longer offers it, leaves the refusal on
 * the page; not after a game switched in another tab, which would draw the other game.
 */
export function ConfirmDialog({ trigger, title, description, size = "sm", ...rest }: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  // A fresh form (and a cleared error) every time the dialog opens.
  const [round, setRound] = useState(0);
  const opener = useRef<Element | null>(null);
  // The refusal the open dialog shows: moved to the page should the page, refreshed for it, no longer offer the dialog.
  const noteRefusal = useAlertWhenGone();

  function handleOpenChange(next: boolean) {
    if (!next && pending) return;
    if (next) {
      setRound((n) => n + 1);
      opener.current = document.activeElement;
    }
    noteRefusal(null);
    setOpen(next);
  }

  return (
    <Dialog
      trigger={trigger}
      open={open}
      onOpenChange={handleOpenChange}
      title={title}
      description={description}
      size={size}
    >
      <ConfirmForm
        key={round}
        {...rest}
        onPendingChange={setPending}
        onShownError={noteRefusal}
        onDone={() => {
          setOpen(false);
          keepFocusInPage(opener.current);
        }}
      />
    </Dialog>
  );
}

type ConfirmFormProps = Omit<ConfirmDialogProps, "trigger" | "title" | "description" | "size"> & {
  onPendingChange: (pending: boolean) => void;
  onShownError: (error: string | null) => void;
  onDone: () => void;
};

function ConfirmForm({
  children,
  confirmLabel,
  pendingLabel,
  cancelLabel = "Cancel",
  tone = "primary",
  action,
  hiddenFields,
  gameId,
  onConfirmed,
  onPendingChange,
  onShownError,
  onDone,
}: ConfirmFormProps) {
  const router = useRouter();
  const [state, formAction, isPending] = useActionState(
    async (previous: ConfirmState, formData: FormData): Promise<ConfirmState> => {
      const typed = typedValues(formData);
      try {
        const result = await action(formData);
        if (result && !result.ok) {
          onShownError(result.message);
          if (result.code === "CONFLICT" && result.message !== GAME_SWITCHED) router.refresh();
          return {
            error: result.message,
            typed: { ...typed, ...result.values },
            fieldErrors: result.fieldErrors ?? {},
            round: previous.round + 1,
          };
        }
        onShownError(null);
        onDone();
        onConfirmed?.(result);
        return { error: null, typed: {}, fieldErrors: {}, round: previous.round + 1 };
      } catch (error) {
        // The framework's own navigation (an action's redirect()) goes on as it would without this.
        if (isFrameworkNavigation(error)) throw error;
        onShownError(UNANSWERED_ACTION);
        return { error: UNANSWERED_ACTION, typed, fieldErrors: {}, round: previous.round + 1 };
      }
    },
    { error: null, typed: {}, fieldErrors: {}, round: 0 },
  );
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes focus, its reason read with it, as on the pages' own forms.
  useFocusFirstInvalid(formRef, state.round > 0 ? state : null);
  const error = state.error;
  const hasBody = Boolean(children) || Boolean(error);

  // Updates made inside the action only land when it settles, so the parent learns "pending" from here.
  useEffect(() => onPendingChange(isPending), [isPending, onPendingChange]);

  return (
    // The dialog's body and footer live inside the form; the confirm button submits it. Enter in one of its fields
    // does not: the dialog is the question asked once more, answered by its button (a bank reference typed and
    // Enter pressed, as after typing, would otherwise record a payment).
    // Submitted by hand rather than through `action`: React resets a form after its action, which would wipe a typed
    // reason when the action answers with an error.
    // A dialog that asks nothing has no body: its footer then sits right under the title, with no empty band.
    <form
      ref={formRef}
      onKeyDown={keepEnterFromSubmitting}
      onSubmit={(event) => submitKeepingFields(event, formAction)}
      className={hasBody ? "-mx-4 -mb-3" : "-mx-4 -my-3"}
    >
      {hiddenFields
        ? Object.entries(hiddenFields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))
        : null}
      {gameId ? <ShownGameField gameId={gameId} /> : null}
      {hasBody ? (
        <div className="flex flex-col gap-3 px-4 pb-3">
          {typeof children === "function" ? children(state.typed, state.fieldErrors) : children}
          {/* Drawn anew for each answer, so a refusal that says what the last said is read out again. */}
          <FormMessage key={state.round} tone="error">
            {error}
          </FormMessage>
        </div>
      ) : null}
      <DialogFooter ruled={hasBody}>
        <DialogClose asChild>
          <Button variant="secondary">{cancelLabel}</Button>
        </DialogClose>
        <Button
          type="submit"
          variant={tone === "danger" ? "danger" : "primary"}
          pending={isPending}
          pendingLabel={pendingLabel}
        >
          {confirmLabel}
        </Button>
      </DialogFooter>
    </form>
  );
}

type ConfirmState = { error: string | null; typed: TypedValues; fieldErrors: FieldErrors; round: number };

/** The text fields of a submitted form (files dropped). */
function typedValues(formData: FormData): TypedValues {
  const out: TypedValues = {};
  for (const [key, value] of formData.entries()) {
    if (typeof value === "string" && !key.startsWith("$ACTION")) out[key] = value;
  }
  return out;
}

function submitKeepingFields(event: FormEvent<HTMLFormElement>, dispatch: (data: FormData) => void): void {
  event.preventDefault();
  const data = new FormData(event.currentTarget);
  startTransition(() => dispatch(data));
}
