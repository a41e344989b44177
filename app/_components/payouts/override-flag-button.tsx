"use client";

import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "./result-notice";
import { type ServerAction, withFields } from "./with-fields";

/** Override of one flag, with the written reason it requires; what it did shows in the page's message area. */
export function OverrideFlagButton({
  action,
  batchId,
  gameId,
  flag: { flag, cause, label },
  recipientPlayerId,
}: {
  action: ServerAction;
  batchId: string;
  /** The game the page was shown for. */
  gameId: string;
  /** The flag instance shown; `cause` is its cause: a flag whose cause changed since is refused. */
  flag: { flag: string; cause: string; label: string };
  recipientPlayerId?: number;
}) {
  const done = useNotice();
  return (
    <ConfirmDialog
      gameId={gameId}
      onConfirmed={done}
      trigger={
        <Button size="sm">
          {/* Named with its flag: a page lists several of these buttons. */}
          Override…<span className="sr-only"> {label}</span>
        </Button>
      }
      title={`Override “${label}”`}
      description={
        "This flag stops blocking approval for the cause shown; a new cause raises it again. Your reason " +
        "is kept with the batch and in the audit log."
      }
      confirmLabel="Override flag"
      size="md"
      action={withFields(action, {
        batchId,
        flag,
        cause,
        recipientPlayerId: recipientPlayerId === undefined ? "" : String(recipientPlayerId),
      })}
    >
      {(_typed, errors) => (
        <Field
          label="Reason"
          hint="At least 10 characters: what was checked, and why paying is right."
          error={errors.reason}
          required
        >
          {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
        </Field>
      )}
    </ConfirmDialog>
  );
}
