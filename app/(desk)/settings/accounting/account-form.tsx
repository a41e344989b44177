"use client";

import { useActionState, useRef, useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import type { ActionResult } from "@/lib/action-result";
import { ShownGameField } from "@/app/_components/forms/shown-game";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/** One account's mapping: the ledger's code and tax rate name. Keeps what was typed when refused. */
export function AccountForm({
  action,
  gameId,
  account,
  label,
  current,
}: {
  action: Action;
  gameId: string;
  account: string;
  label: string;
  current: { code: string; taxRate: string | null } | null;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  // The mapping the fields showed when typing began: the page drawn again meanwhile (another form of it saved) shows a
  // colleague's change in the fields left alone, never under what was typed over the older one.
  const [typedOver, setTypedOver] = useState<typeof current | undefined>(undefined);
  // A save answered ok starts the next typing afresh; a refusal keeps the mapping the typing began over.
  const [answered, setAnswered] = useState(state);
  if (answered !== state) {
    setAnswered(state);
    if (state?.ok) setTypedOver(undefined);
  }
  const drawn = typedOver === undefined ? current : typedOver;
  return (
    <form
      ref={formRef}
      action={formAction}
      onInput={() => setTypedOver((kept) => (kept === undefined ? current : kept))}
      className="flex flex-col gap-3"
      noValidate
      aria-label={`Map ${label}`}
    >
      <ShownGameField gameId={gameId} />
      <input type="hidden" name="account" value={account} />
      {/* The mapping this page shows: a save after another admin's change is refused rather than undo it. */}
      <input type="hidden" name="drawnCode" value={drawn?.code ?? ""} />
      <input type="hidden" name="drawnTaxRate" value={drawn?.taxRate ?? ""} />
      <ResultMessage result={state} />
      <div className="grid gap-3 sm:grid-cols-2">
        <Field
          label={`${label}: account code`}
          hint="Xero: the code (200). QuickBooks Online: the account name, Parent:Sub for a sub-account."
          error={errors.code}
          required
        >
          {(control) => (
            <Input {...control} name="code" autoComplete="off" defaultValue={values.code ?? current?.code ?? ""} />
          )}
        </Field>
        <Field
          label={`${label}: tax rate name`}
          hint="As in the ledger's tax settings (No GST, Tax Exempt). Xero needs one."
          error={errors.taxRate}
        >
          {(control) => (
            <Input
              {...control}
              name="taxRate"
              autoComplete="off"
              defaultValue={values.taxRate ?? current?.taxRate ?? ""}
            />
          )}
        </Field>
      </div>
      <div>
        <SubmitButton pendingLabel="Saving…">
          {current ? "Save" : "Map"} {label.toLowerCase()}
        </SubmitButton>
      </div>
    </form>
  );
}

/** The order QuickBooks Online reads the journal file's dates in, for the selected game. */
export function DateOrderForm({
  action,
  gameId,
  current,
  options,
}: {
  action: Action;
  gameId: string;
  current: string;
  options: { value: string; label: string }[];
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  return (
    <form action={formAction} className="flex flex-col gap-3" noValidate aria-label="QuickBooks Online date format">
      <ShownGameField gameId={gameId} />
      <ResultMessage result={state} />
      <Field
        label="Dates in the QuickBooks Online journal file"
        hint="As the company's date format in QuickBooks (Settings → Account and settings → Advanced)."
        error={errors.order}
      >
        {(control) => (
          <Select
            {...control}
            name="order"
            key={values.order ?? current}
            defaultValue={values.order ?? current}
            options={options}
          />
        )}
      </Field>
      <div>
        <SubmitButton pendingLabel="Saving…">Save date format</SubmitButton>
      </div>
    </form>
  );
}
