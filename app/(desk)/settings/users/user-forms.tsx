"use client";

import { useRouter } from "next/navigation";
import { useActionState, useState, useRef } from "react";
import { Field } from "@/app/_components/forms/field";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import type { ActionResult } from "@/lib/actions";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/roles";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function CreateUserForm({ action }: { action: Action }) {
  // Kept in the browser while a creation is refused (the server never sends a password back), cleared once created.
  const [password, setPassword] = useState("");
  const [state, formAction] = useActionState(async (previous: ActionResult | null, form: FormData) => {
    const result = await keepTyped(action)(previous, form);
    if (result.ok) setPassword("");
    return result;
  }, null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  return (
    <form ref={formRef} action={formAction} className="grid gap-4 sm:grid-cols-2" noValidate aria-label="Create a user">
      <div className="sm:col-span-2">
        <ResultMessage result={state} />
      </div>
      <Field label="Email" id="user-email" required error={errors.email}>
        {(control) => (
          <Input {...control} name="email" defaultValue={values.email} type="email" required autoComplete="off" />
        )}
      </Field>
      <Field label="Name" id="user-name" required error={errors.name}>
        {(control) => <Input {...control} name="name" defaultValue={values.name} required autoComplete="off" />}
      </Field>
      <Field label="Role" id="user-role" error={errors.role}>
        {(control) => (
          <Select {...control} name="role" key={values.role ?? "viewer"} defaultValue={values.role ?? "viewer"}>
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field
        label="Initial password"
        id="user-password"
        required
        hint="At least 10 characters."
        error={errors.password}
      >
        {(control) => (
          <Input
            {...control}
            name="password"
            type="password"
            required
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <div className="sm:col-span-2">
        <SubmitButton>Create user</SubmitButton>
      </div>
    </form>
  );
}

export function ChangeRoleForm({
  action,
  userId,
  email,
  role,
}: {
  action: Action;
  userId: string;
  email: string;
  role: Role;
}) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  // React resets the form after every answer, and a select shows the choice it was first drawn with: keyed by the
  // role it shows, it shows the role saved (the page's, once changed) or, when refused, the one chosen.
  const shown = state && !state.ok ? (state.values?.role ?? role) : role;
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="userId" value={userId} />
      <label className="sr-only" htmlFor={`role-${userId}`}>
        Role of {email}
      </label>
      <Select
        id={`role-${userId}`}
        name="role"
        key={shown}
        defaultValue={shown}
        className="w-auto"
        aria-invalid={state && !state.ok ? true : undefined}
        aria-describedby={state && !state.ok ? `role-${userId}-message` : undefined}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </Select>
      <SubmitButton variant="secondary" size="sm">
        Change role<span className="sr-only"> of {email}</span>
      </SubmitButton>
      {/* Each answer made anew, a success's region filled after it is in the page: both are read out. */}
      <div id={`role-${userId}-message`}>
        <ResultMessage result={state} className="px-2 py-1 text-xs" />
      </div>
    </form>
  );
}

type DialogAction = (form: FormData) => Promise<ConfirmResult>;

/** Removing a user's access, and setting their password (which gives access back), for one user's row. */
export function AccessForms(props: {
  removeAction: DialogAction;
  passwordAction: DialogAction;
  userId: string;
  email: string;
  hasAccess: boolean;
  isSelf: boolean;
}) {
  const router = useRouter();
  const [notice, setNotice] = useState<string | null>(null);
  const done = (result: ConfirmResult | undefined) => {
    if (result?.ok) setNotice(result.message ?? null);
    router.refresh();
  };
  const withUser =
    (action: DialogAction): DialogAction =>
    (form) => {
      form.set("userId", props.userId);
      return action(form);
    };
  return (
    <div className="flex flex-wrap items-center gap-2">
      {props.hasAccess && !props.isSelf ? (
        <ConfirmDialog
          onConfirmed={done}
          trigger={
            <Button variant="secondary" size="sm">
              Remove access<span className="sr-only"> of {props.email}</span>…
            </Button>
          }
          title={`Remove ${props.email}'s access`}
          description={
            "Every session of theirs ends now and their password is deleted: they cannot sign in until an admin " +
            "sets a new one. Their name stays on what they did, in the audit log."
          }
          confirmLabel="Remove access"
          tone="danger"
          action={withUser(props.removeAction)}
        />
      ) : null}
      <ConfirmDialog
        onConfirmed={done}
        trigger={
          <Button variant="secondary" size="sm">
            {props.hasAccess ? "Set a new password" : "Give access back"}
            <span className="sr-only"> for {props.email}</span>…
          </Button>
        }
        title={props.hasAccess ? `New password for ${props.email}` : `Give ${props.email} access again`}
        description={
          props.hasAccess
            ? "Their other sessions end; tell them the new password another way than email."
            : "They sign in with this password; tell it to them another way than email."
        }
        confirmLabel={props.hasAccess ? "Set password" : "Give access back"}
        size="md"
        action={withUser(props.passwordAction)}
      >
        {(_typed, errors) => (
          <Field label="New password" hint="At least 10 characters." error={errors.password} required>
            {(control) => <Input {...control} name="password" type="password" autoComplete="new-password" />}
          </Field>
        )}
      </ConfirmDialog>
      {/* In the page before its text, so that the text arriving is a change screen readers read. */}
      <span role="status" className="text-xs text-success">
        {notice || null}
      </span>
    </div>
  );
}
