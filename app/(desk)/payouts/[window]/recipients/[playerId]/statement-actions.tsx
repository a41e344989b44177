"use client";

import { useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { PaymentFields } from "../../recipient-table";
import { ResultNotice } from "../../result-notice";

type ServerAction = (form: FormData) => Promise<ConfirmResult>;

/** Approve, return to draft, hold, release or pay one statement, by the rules of its batch. */
export function StatementActions({
  batchId,
  batchStatus,
  statementId,
  state,
  actions,
  methods,
  today,
}: {
  batchId: string;
  batchStatus: string;
  statementId: string;
  state: string;
  actions: { approve: ServerAction; unapprove: ServerAction; hold: ServerAction; release: ServerAction; markPaid: ServerAction };
  methods: { value: string; label: string }[];
  today: string;
}) {
  const fields = (action: ServerAction): ServerAction => (form) => {
    form.set("batchId", batchId);
    form.set("ids", statementId);
    return action(form);
  };
  const draftBatch = batchStatus === "draft";
  const [result, setResult] = useState<ConfirmResult | null>(null);
  const done = (r: ConfirmResult | void) => setResult(r ?? null);
  return (
    <div className="flex max-w-xl flex-col items-end gap-2">
      <ResultNotice result={result} />
      <div className="flex flex-wrap gap-2">
        {draftBatch && state === "draft" ? (
          <ConfirmDialog
            onConfirmed={done}
            trigger={<Button variant="primary">Approve</Button>}
            title="Approve this statement?"
            description="It will be paid when the batch is approved and the payment recorded."
            confirmLabel="Approve"
            action={fields(actions.approve)}
          />
        ) : null}
        {draftBatch && state === "approved" ? (
          <ConfirmDialog onConfirmed={done} trigger={<Button>Back to draft</Button>} title="Return this statement to draft?" confirmLabel="Return to draft" action={fields(actions.unapprove)} />
        ) : null}
        {(draftBatch && (state === "draft" || state === "approved")) || (!draftBatch && state === "approved") ? (
          <ConfirmDialog
            onConfirmed={done}
            trigger={<Button variant="danger">Hold…</Button>}
            title="Hold this payout"
            description="A held payout is not paid and stays owed to the recipient. The reason is kept."
            confirmLabel="Hold payout"
            tone="danger"
            size="md"
            action={fields(actions.hold)}
          >
            <Field label="Reason" hint="At least 5 characters." required>
              {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
            </Field>
          </ConfirmDialog>
        ) : null}
        {state === "held" ? (
          <ConfirmDialog onConfirmed={done} trigger={<Button>Release hold…</Button>} title="Release the hold" confirmLabel="Release" size="md" action={fields(actions.release)}>
            <Field label="Reason" hint="Why the hold no longer applies." required>
              {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
            </Field>
          </ConfirmDialog>
        ) : null}
        {!draftBatch && state === "approved" ? (
          <ConfirmDialog
            onConfirmed={done}
            trigger={<Button variant="primary">Mark paid…</Button>}
            title="Record the payment of this statement"
            confirmLabel="Record payment"
            size="md"
            action={fields(actions.markPaid)}
          >
            <PaymentFields methods={methods} today={today} />
          </ConfirmDialog>
        ) : null}
      </div>
    </div>
  );
}
