"use client";

import { useActionState } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { Input } from "@/app/_components/forms/input";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";

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
  const [state, formAction] = useActionState(action, null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  return (
    <form action={formAction} className="flex flex-col gap-3" noValidate aria-label={`Map ${label}`}>
      <input type="hidden" name={EXPECTED_GAME_FIELD} value={gameId} />
      <input type="hidden" name="account" value={account} />
      {state ? <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage> : null}
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
