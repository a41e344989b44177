"use client";

import { useActionState, useState, useRef } from "react";
import { Field } from "@/app/_components/forms/field";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Button } from "@/app/_components/ui/button";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import type { ActionResult } from "@/lib/actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

type Action = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

/** The secret fields: kept in the browser while a save is refused (the server never sends a secret back). */
const NO_SECRETS = { secret: "", webhookSecret: "", webhookPreviousSecret: "" };

export function GameForm({ action }: { action: Action }) {
  const [secrets, setSecrets] = useState(NO_SECRETS);
  const [state, formAction] = useActionState(async (previous: ActionResult | null, form: FormData) => {
    const result = await keepTyped(action)(previous, form);
    if (result.ok) setSecrets(NO_SECRETS);
    return result;
  }, null);
  const secretField = (name: keyof typeof NO_SECRETS) => ({
    name,
    type: "password",
    // A password manager ignores "off" on a password field and may offer to keep a live secret as a site password;
    // "new-password" tells it this is no sign-in of the person's own.
    autoComplete: "new-password",
    value: secrets[name],
    onChange: (e: { target: { value: string } }) => setSecrets((kept) => ({ ...kept, [name]: e.target.value })),
  });
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  return (
    <form
      ref={formRef}
      action={formAction}
      className="grid gap-4 sm:grid-cols-2"
      noValidate
      aria-label="Add or update a game"
    >
      <div className="sm:col-span-2">
        <ResultMessage result={state} />
      </div>
      <Field
        label="Game id"
        id="game-id"
        required
        hint="The game id the service uses (tenant_id on webhooks)."
        error={errors.id}
      >
        {(control) => <Input {...control} name="id" defaultValue={values.id} required autoComplete="off" />}
      </Field>
      <Field label="Name" id="game-name" required error={errors.name}>
        {(control) => <Input {...control} name="name" defaultValue={values.name} required autoComplete="off" />}
      </Field>
      <Field label="Environment" id="game-environment" error={errors.environment} required>
        {(control) => (
          <Select
            {...control}
            name="environment"
            key={values.environment ?? ""}
            defaultValue={values.environment ?? ""}
          >
            <option value="" disabled>
              Choose…
            </option>
            <option value="sandbox">Sandbox (test data)</option>
            <option value="production">Production</option>
          </Select>
        )}
      </Field>
      <Field
        label="Service base URL"
        id="game-base-url"
        required
        hint="Without /sandbox; it is added for sandbox games."
        error={errors.baseUrl}
      >
        {(control) => (
          <Input
            {...control}
            name="baseUrl"
            defaultValue={values.baseUrl}
            type="url"
            required
            autoComplete="off"
            placeholder="https://"
          />
        )}
      </Field>
      <Field
        label="Game secret"
        id="game-secret"
        required
        hint="Stored encrypted; shown only masked afterwards."
        error={errors.secret}
      >
        {(control) => <Input {...control} {...secretField("secret")} required />}
      </Field>
      <Field
        label="Webhook signing secret"
        id="game-webhook-secret"
        hint="Optional. For a game that exists, leave it empty to keep the stored ones; to change it, rotate it."
        error={errors.webhookSecret}
      >
        {(control) => <Input {...control} {...secretField("webhookSecret")} />}
      </Field>
      <Field
        label="Previous webhook signing secret"
        id="game-webhook-previous"
        hint="Only during a rotation: deliveries signed with it are still accepted."
        error={errors.webhookPreviousSecret}
      >
        {(control) => <Input {...control} {...secretField("webhookPreviousSecret")} />}
      </Field>
      <Field label="If the game exists" id="game-replace" error={errors.replace}>
        {(control) => (
          <Select {...control} name="replace" key={values.replace ?? "no"} defaultValue={values.replace ?? "no"}>
            <option value="no">Refuse (add a new game only)</option>
            <option value="yes">Replace its settings (signing secrets kept unless given)</option>
          </Select>
        )}
      </Field>
      <label className="flex items-center gap-2 text-sm text-ink sm:col-span-2">
        <input
          type="checkbox"
          name="changeEnvironment"
          key={values.changeEnvironment ?? "off"}
          defaultChecked={values.changeEnvironment === "on"}
        />
        Change the environment of a game that exists (its calls and payment files change with it; what it holds stays:
        snapshots, batches, balances carried and payout details from its sandbox days are paid from in production)
      </label>
      <div className="sm:col-span-2">
        <SubmitButton>Save game</SubmitButton>
      </div>
    </form>
  );
}

/**
 * Rotates a game's webhook signing secret: the new one becomes current and the one it replaces stays accepted for the
 * service's 7-day grace, so that deliveries already signed with it are not refused.
 */
export function RotateSecretForm({ action, games }: { action: Action; games: { id: string; name: string }[] }) {
  const [secret, setSecret] = useState("");
  const [state, formAction] = useActionState(async (previous: ActionResult | null, form: FormData) => {
    const result = await keepTyped(action)(previous, form);
    if (result.ok) setSecret("");
    return result;
  }, null);
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const values = state && !state.ok ? (state.values ?? {}) : {};
  const formRef = useRef<HTMLFormElement>(null);
  // A refused field takes the focus, its error read with it.
  useFocusFirstInvalid(formRef, state && !state.ok ? state : null);
  return (
    <form
      ref={formRef}
      action={formAction}
      className="grid gap-4 sm:grid-cols-2"
      noValidate
      aria-label="Rotate a webhook signing secret"
    >
      <div className="sm:col-span-2">
        <ResultMessage result={state} />
      </div>
      <Field label="Game" id="rotate-game" error={errors.gameId}>
        {(control) => (
          <Select {...control} name="gameId" key={values.gameId ?? ""} defaultValue={values.gameId ?? games[0]?.id}>
            {games.map((game) => (
              <option key={game.id} value={game.id}>
                {game.name} ({game.id})
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field
        label="New webhook signing secret"
        id="rotate-secret"
        required
        hint="As the service console shows it after rotating. The one it replaces stays accepted for 7 days."
        error={errors.webhookSecret}
      >
        {(control) => (
          <Input
            {...control}
            name="webhookSecret"
            type="password"
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            required
          />
        )}
      </Field>
      <div className="sm:col-span-2">
        <SubmitButton>Rotate signing secret</SubmitButton>
      </div>
    </form>
  );
}

/**
 * Stops accepting the previous signing secret before the rotation grace ends (when it leaked), once confirmed: the
 * secret is deleted, and deliveries signed with it are refused from then on.
 */
export function RevokePreviousForm({ action, gameId }: { action: Action; gameId: string }) {
  // Reported to the page: the form goes with the previous secret once it is revoked.
  const report = useNotice();
  return (
    <div className="mt-1">
      <ConfirmDialog
        trigger={
          <Button variant="secondary" size="sm">
            Stop accepting it now…
          </Button>
        }
        title="Stop accepting the previous signing secret?"
        description={
          "It is deleted now, before its grace period ends: deliveries signed with it are refused from then on. " +
          "Do this when the previous secret leaked."
        }
        confirmLabel="Stop accepting it"
        tone="danger"
        hiddenFields={{ gameId }}
        action={(form) => action(null, form)}
        onConfirmed={report}
      />
    </div>
  );
}
