"use client";

import { type ReactNode, useEffect, useState } from "react";
import { useAskOnceMore } from "@/app/_components/forms/ask-once-more";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { Button } from "@/app/_components/ui/button";
import { FocusHere } from "@/app/_components/ui/focus-here";
import { keepEnterFromSubmitting } from "@/app/_components/forms/enter-in-field";
import type { ActionResult } from "@/lib/action-result";
import {
  PAYOUT_METHOD_LABELS,
  PAYOUT_METHODS,
  type PayoutMethod,
  TAX_FORM_CHANGED_ELSEWHERE,
  TAX_FORMS,
  taxFormText,
} from "@/lib/profiles/schemas";
import { useKeptForm } from "./use-kept-form";
import { ShownGameField } from "@/app/_components/forms/shown-game";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

const DETAIL_FIELDS: Record<PayoutMethod, { name: string; label: string; hint?: string; type?: string }[]> = {
  paypal: [
    { name: "paypalEmail", label: "PayPal email", type: "email", hint: "Or the payer id below (one of the two)." },
    { name: "paypalPayerId", label: "PayPal payer id", hint: "13 letters and digits." },
  ],
  wise: [
    { name: "wiseEmail", label: "Wise email", type: "email" },
    { name: "wiseName", label: "Name on the Wise account" },
  ],
  bank_transfer: [
    { name: "accountHolder", label: "Account holder" },
    { name: "iban", label: "IBAN", hint: "Spaces are fine: DE89 3704 0044 0532 0130 00." },
    { name: "bic", label: "BIC", hint: "8 or 11 letters and digits." },
    { name: "bankCountry", label: "Bank country", hint: "Two letters, the BIC's country (DE)." },
  ],
  manual: [],
};

/** What each form here opens with: the game and recipient it is for, then the result of the last submit. */
function FormHead({
  gameId,
  playerId,
  state,
  children,
}: {
  gameId: string;
  playerId: number;
  state: ActionResult | null;
  children?: ReactNode;
}) {
  return (
    <>
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="playerId" value={playerId} />
      {children}
      <ResultMessage result={state} />
    </>
  );
}

/**
 * The payout details form. The details typed here are never shown again by the server: the fields keep their own
 * state, so after an error everything typed is still there.
 */
export function PayoutDetailsForm({
  action,
  gameId,
  playerId,
  current,
  firstDetails,
}: {
  action: Action;
  gameId: string;
  playerId: number;
  current: { method: PayoutMethod | null; currency: string | null };
  firstDetails: boolean;
}) {
  const { state, pending, onSubmit, errors, formRef } = useKeptForm(action);
  const [method, setMethod] = useState<PayoutMethod | "">(current.method ?? "");
  const [values, setValues] = useState<Record<string, string>>({ currency: current.currency ?? "" });
  // Details in force that change while the page is open (a change approved on it) start the form anew from them.
  const [shown, setShown] = useState(current);
  if (shown.method !== current.method || shown.currency !== current.currency) {
    setShown(current);
    setMethod(current.method ?? "");
    setValues({ currency: current.currency ?? "" });
  }
  // Once saved, the details leave the page: only their masked form is shown from then on.
  useEffect(() => {
    if (state?.ok) setValues((v) => ({ currency: v.currency ?? "" }));
  }, [state]);
  const text = (name: string) => values[name] ?? "";
  const set = (name: string) => (event: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [name]: event.target.value }));
  return (
    // POST even before the page's script runs (a slow link): a form sent the browser's own way never puts what it
    // holds, an IBAN, into the address, its history or an access log.
    <form
      ref={formRef}
      method="post"
      onSubmit={onSubmit}
      // Enter in a field does not save details that apply at once: only the button does.
      onKeyDown={keepEnterFromSubmitting}
      noValidate
      aria-label="Payout details"
      className="flex max-w-xl flex-col gap-3"
    >
      <FormHead gameId={gameId} playerId={playerId} state={state} />
      <p className="text-sm text-ink-muted">
        {firstDetails
          ? "The first details of a recipient apply at once."
          : "A change waits for a finance user's review (another's than yours under the two-person rule); the " +
            "details in force stay until it is approved."}
      </p>
      <Field label="Method" error={errors.method} required>
        {(control) => (
          <Select
            {...control}
            name="method"
            value={method}
            onChange={(e) => setMethod(e.target.value as PayoutMethod | "")}
            placeholder="Choose a method"
            options={PAYOUT_METHODS.map((m) => ({ value: m, label: PAYOUT_METHOD_LABELS[m] }))}
            className="max-w-72"
          />
        )}
      </Field>
      {method
        ? DETAIL_FIELDS[method].map((f) => (
            <Field key={f.name} label={f.label} hint={f.hint} error={errors[f.name]} required={method !== "paypal"}>
              {(control) => (
                <Input
                  {...control}
                  name={f.name}
                  type={f.type ?? "text"}
                  autoComplete="off"
                  spellCheck={false}
                  value={text(f.name)}
                  onChange={set(f.name)}
                  className="max-w-96"
                />
              )}
            </Field>
          ))
        : null}
      <Field label="Payout currency" hint="ISO 4217 code, such as EUR or USD." error={errors.currency} required>
        {(control) => (
          <Input
            {...control}
            name="currency"
            autoComplete="off"
            value={text("currency")}
            onChange={set("currency")}
            className="max-w-24"
          />
        )}
      </Field>
      <div>
        <Button type="submit" variant="primary" pending={pending} pendingLabel="Saving…">
          {firstDetails ? "Save payout details" : "Submit change for review"}
        </Button>
      </div>
    </form>
  );
}

type TaxFormValues = { taxForm: string; taxFormReceivedOn: string; taxFormExpiresOn: string };

function taxFormValues(current: { taxForm: string; receivedOn: string | null; expiresOn: string | null }) {
  return {
    taxForm: current.taxForm,
    taxFormReceivedOn: current.receivedOn ?? "",
    taxFormExpiresOn: current.expiresOn ?? "",
  };
}

const sameTaxForm = (a: TaxFormValues, b: TaxFormValues): boolean =>
  a.taxForm === b.taxForm && a.taxFormReceivedOn === b.taxFormReceivedOn && a.taxFormExpiresOn === b.taxFormExpiresOn;

/** The two dates of a tax form, in the order the form shows them. */
const TAX_FORM_DATES = [
  { name: "taxFormReceivedOn", label: "Received on", hint: undefined },
  { name: "taxFormExpiresOn", label: "Expires on", hint: "W-8 forms: the last day of the third year after signing." },
] as const;

export function TaxFormForm({
  action,
  gameId,
  playerId,
  current,
}: {
  action: Action;
  gameId: string;
  playerId: number;
  current: { taxForm: string; receivedOn: string | null; expiresOn: string | null; drawn: string };
}) {
  const { state, pending, onSubmit, errors, formRef } = useKeptForm(action);
  const [values, setValues] = useState(() => taxFormValues(current));
  // The tax form the fields were drawn from, sent back with a save (`drawn`): one recorded since (a colleague's, seen
  // when the page is drawn again) is taken into fields left as they were, and a save of fields typed over the older one
  // is refused rather than overwrite it.
  const [shown, setShown] = useState(current);
  // A save of this form answered ok: the tax form recorded next is that save's (stored as the server reads it, the
  // dates of "none" dropped), taken in whatever the fields hold, until something is typed.
  const [answered, setAnswered] = useState(state);
  const [ownSave, setOwnSave] = useState(false);
  // A save refused because a colleague recorded a form since: the person has been told, and the form on file now is
  // named below; saving again replaces it with what they typed, which is kept.
  const [refused, setRefused] = useState(false);
  const [replacing, setReplacing] = useState<typeof current | null>(null);
  let conflict = refused;
  if (answered !== state) {
    setAnswered(state);
    if (state?.ok) {
      setOwnSave(true);
      setReplacing(null);
    }
    // Only the refusal of a form changed elsewhere: another (the payouts busy) says nothing of the form on file.
    conflict = Boolean(state && !state.ok && state.message === TAX_FORM_CHANGED_ELSEWHERE);
    setRefused(conflict);
  }
  if (shown.drawn !== current.drawn) {
    const untouched = sameTaxForm(values, taxFormValues(shown)) || sameTaxForm(values, taxFormValues(current));
    if (untouched || ownSave) {
      setShown(current);
      setValues(taxFormValues(current));
      setOwnSave(false);
      setReplacing(null);
    } else if (conflict) {
      setShown(current);
      setReplacing(current);
      setRefused(false);
    }
  }
  const set = (name: keyof typeof values) => (event: { target: { value: string } }) => {
    setOwnSave(false);
    setRefused(false);
    setValues((v) => ({ ...v, [name]: event.target.value }));
  };
  return (
    <form
      ref={formRef}
      method="post"
      onSubmit={onSubmit}
      noValidate
      aria-label="Tax form"
      className="flex max-w-xl flex-col gap-3"
    >
      <FormHead gameId={gameId} playerId={playerId} state={state}>
        <input type="hidden" name="drawn" value={shown.drawn} />
      </FormHead>
      <Field label="Tax form on file" error={errors.taxForm} required>
        {(control) => (
          <Select
            {...control}
            name="taxForm"
            value={values.taxForm}
            onChange={set("taxForm")}
            options={TAX_FORMS.map((f) => ({ value: f, label: f === "none" ? "None" : f }))}
            className="max-w-48"
          />
        )}
      </Field>
      <div className="flex flex-wrap gap-3">
        {TAX_FORM_DATES.map(({ name, label, hint }) => (
          <Field
            key={name}
            label={label}
            hint={hint}
            error={errors[name]}
            // Received on for any form on file; Expires on for a W-8 (the server refuses either missing).
            required={name === "taxFormReceivedOn" ? values.taxForm !== "none" : values.taxForm.startsWith("W-8")}
          >
            {(control) => <Input {...control} name={name} type="date" value={values[name]} onChange={set(name)} />}
          </Field>
        ))}
      </div>
      {replacing ? (
        <p className="text-sm text-ink-muted">
          On file now, recorded by someone else:{" "}
          {taxFormText(replacing.taxForm, replacing.receivedOn, replacing.expiresOn)}. Saving replaces it with the form
          above.
        </p>
      ) : null}
      <div>
        <Button type="submit" variant="secondary" pending={pending} pendingLabel="Saving…">
          Save tax form
        </Button>
      </div>
    </form>
  );
}

export function ReviewChangeForm({
  action,
  gameId,
  playerId,
  changeId,
}: {
  action: Action;
  gameId: string;
  playerId: number;
  /** Null once there is nothing this person can review: only the last review's outcome is shown. */
  changeId: string | null;
}) {
  const { state, pending, onSubmit, errors, formRef } = useKeptForm(action);
  const [note, setNote] = useState("");
  // Focus follows the question: to its answer when asked, back to "Reject change…" when kept for review.
  const reject = useAskOnceMore<HTMLButtonElement, HTMLButtonElement>();
  // The review's outcome replaces the form and the button just pressed: focus goes to it, not to the page's start.
  if (changeId === null)
    return state ? (
      <FocusHere>
        <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
      </FocusHere>
    ) : null;
  return (
    <form
      ref={formRef}
      method="post"
      onSubmit={onSubmit}
      noValidate
      aria-label="Review the change"
      className="mt-3 flex max-w-xl flex-col gap-3"
    >
      <FormHead gameId={gameId} playerId={playerId} state={state}>
        <input type="hidden" name="changeId" value={changeId} />
      </FormHead>
      <Field label="Note (optional)" hint="How the change was confirmed with the recipient." error={errors.note}>
        {(control) => (
          <Input
            {...control}
            name="note"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            // Enter in the note decides nothing: the form's first button approves, so a review is given by a button.
            onKeyDown={(e) => {
              if (e.key === "Enter") e.preventDefault();
            }}
            className="max-w-96"
          />
        )}
      </Field>
      {reject.asking ? (
        // Rejecting drops the details entered: asked once more, here, before anything is sent.
        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm text-ink">
            Reject this change? The details entered are dropped and must be typed again to change them.
          </legend>
          <div className="flex gap-2">
            <Button
              ref={reject.question}
              type="submit"
              name="decision"
              value="reject"
              variant="danger"
              pending={pending}
            >
              Reject change
            </Button>
            <Button type="button" variant="secondary" disabled={pending} onClick={reject.goBack}>
              Keep it for review
            </Button>
          </div>
        </fieldset>
      ) : (
        <div className="flex gap-2">
          <Button type="submit" name="decision" value="approve" variant="primary" pending={pending}>
            Approve change
          </Button>
          <Button ref={reject.askButton} type="button" variant="danger" disabled={pending} onClick={reject.ask}>
            Reject change…
          </Button>
        </div>
      )}
    </form>
  );
}
