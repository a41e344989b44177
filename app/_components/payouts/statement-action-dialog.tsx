"use client";

import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmDialogProps, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import type { StatementAction } from "@/lib/payouts/offered-actions";
import { PaymentFields } from "./payment-fields";

/** What the dialog of one statement action says, on one statement or on a selection of them. */
export type StatementDialogText = {
  label: string;
  title: string;
  description?: string;
  confirmLabel: string;
  pendingLabel?: string;
  /** The hint under the written reason, for the actions that take one (hold, release, carry forward). */
  reasonHint?: string;
  variant?: "primary" | "danger";
};

/**
 * The confirm dialog of a statement action (approve, hold, release, carry forward, record payment), shared by a
 * recipient's statement page and the window's bulk bar: a reason field where the action takes one, the payment
 * fields when recording a payment.
 */
export function StatementActionDialog({
  action,
  text,
  run,
  onConfirmed,
  size,
  methods,
  today,
  gameId,
}: {
  action: StatementAction;
  text: StatementDialogText;
  run: ConfirmDialogProps["action"];
  onConfirmed: (result: ConfirmResult | undefined) => void;
  size?: "sm";
  methods: { value: string; label: string }[];
  today: string;
  gameId: string;
}) {
  const asksMore = action === "mark_paid" || text.reasonHint !== undefined;
  return (
    <ConfirmDialog
      onConfirmed={onConfirmed}
      trigger={
        <Button size={size} variant={text.variant}>
          {text.label}
        </Button>
      }
      title={text.title}
      description={text.description}
      confirmLabel={text.confirmLabel}
      pendingLabel={text.pendingLabel}
      tone={action === "hold" ? "danger" : undefined}
      size={asksMore ? "md" : undefined}
      action={run}
      gameId={gameId}
    >
      {(_typed, errors) => (
        <>
          {action === "mark_paid" ? <PaymentFields methods={methods} today={today} errors={errors} /> : null}
          {text.reasonHint === undefined ? null : (
            <Field label="Reason" hint={text.reasonHint} error={errors.reason} required>
              {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
            </Field>
          )}
        </>
      )}
    </ConfirmDialog>
  );
}
