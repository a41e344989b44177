"use client";

import { Fragment } from "react";
import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import type { StatementAction } from "@/lib/payouts/offered-actions";
import type { OfferedAction } from "@/lib/payouts/offered-actions";
import { PaymentFields } from "@/app/_components/payouts/payment-fields";
import { NoticeProvider, useNotice } from "@/app/_components/payouts/result-notice";

type ServerAction = Parameters<typeof ConfirmDialog>[0]["action"];

export type StatementActionsProps = {
  batchId: string;
  statementId: string;
  /** What lib/payouts/offered-actions.ts offers this person for this statement (allowed, or blocked with a reason). */
  offers: OfferedAction[];
  actions: Record<StatementAction, ServerAction>;
  methods: { value: string; label: string }[];
  today: string;
};

/** The actions one person can take on one statement; one that is not theirs to take now says why. */
export function StatementActions(props: StatementActionsProps) {
  return (
    <NoticeProvider>
      <StatementButtons {...props} />
    </NoticeProvider>
  );
}

const LABELS: Record<StatementAction, string> = {
  approve: "Approve",
  unapprove: "Back to draft",
  hold: "Hold…",
  release: "Release hold…",
  carry_forward: "Carry forward…",
  mark_paid: "Mark paid…",
};

function StatementButtons({ batchId, statementId, offers, actions, methods, today }: StatementActionsProps) {
  const done = useNotice();
  const fields =
    (action: ServerAction): ServerAction =>
    (form) => {
      form.set("batchId", batchId);
      form.set("ids", statementId);
      return action(form);
    };
  const reason = (hint: string) => (
    <Field label="Reason" hint={hint} required>
      {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
    </Field>
  );
  const render = ({ action, verdict }: OfferedAction) => {
    if (verdict.kind !== "allowed") {
      return (
        <Button disabled aria-describedby={`why-${action}`}>
          {LABELS[action]}
        </Button>
      );
    }
    const common = { onConfirmed: done, action: fields(actions[action]) };
    switch (action) {
      case "approve":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button variant="primary">Approve</Button>}
            title="Approve this statement?"
            description="It will be paid when the batch is approved and the payment recorded."
            confirmLabel="Approve"
          />
        );
      case "unapprove":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button>Back to draft</Button>}
            title="Return this statement to draft?"
            confirmLabel="Return to draft"
          />
        );
      case "hold":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button variant="danger">Hold…</Button>}
            title="Hold this payout"
            description="A held payout is not paid and stays owed to the recipient. The reason is kept."
            confirmLabel="Hold payout"
            tone="danger"
            size="md"
          >
            {reason("At least 5 characters.")}
          </ConfirmDialog>
        );
      case "release":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button>Release hold…</Button>}
            title="Release the hold"
            confirmLabel="Release"
            size="md"
          >
            {reason("Why the hold no longer applies.")}
          </ConfirmDialog>
        );
      case "carry_forward":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button>Carry forward…</Button>}
            title="Carry this balance forward"
            description="The statement closes unpaid and its whole balance moves to the recipient's next statement, which pays it once that batch is approved."
            confirmLabel="Carry forward"
            size="md"
          >
            {reason("Why this balance is paid with the next statement instead.")}
          </ConfirmDialog>
        );
      case "mark_paid":
        return (
          <ConfirmDialog
            {...common}
            trigger={<Button variant="primary">Mark paid…</Button>}
            title="Record the payment of this statement"
            confirmLabel="Record payment"
            size="md"
          >
            <PaymentFields methods={methods} today={today} />
          </ConfirmDialog>
        );
    }
  };
  return (
    <div className="flex max-w-xl flex-col items-end gap-1">
      <div className="flex flex-wrap justify-end gap-2">
        {offers.map((offer) => (
          <Fragment key={offer.action}>{render(offer)}</Fragment>
        ))}
      </div>
      {offers.map(({ action, verdict }) =>
        verdict.kind === "blocked" ? (
          <p key={action} id={`why-${action}`} className="text-right text-xs text-ink-muted">
            {LABELS[action].replace("…", "")}: {verdict.reason}
          </p>
        ) : null,
      )}
    </div>
  );
}
