"use client";

import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import type { OfferedAction, StatementAction } from "@/lib/payouts/offered-actions";
import { PaymentFields } from "@/app/_components/payouts/payment-fields";

type ServerAction = (form: FormData) => Promise<ConfirmResult>;

export type BulkActions = {
  approve: ServerAction;
  unapprove: ServerAction;
  hold: ServerAction;
  release: ServerAction;
  carryForward: ServerAction;
  markPaid: ServerAction;
};

function withIds(action: ServerAction, batchId: string, ids: string[]): (form: FormData) => Promise<ConfirmResult> {
  return (form) => {
    form.set("batchId", batchId);
    for (const id of ids) form.append("ids", id);
    return action(form);
  };
}

const REASON_FIELD_HINTS: Partial<Record<StatementAction, string>> = {
  hold: "At least 5 characters; shown on the statement and kept in the audit log.",
  release: "Why the hold no longer applies.",
  carry_forward: "Why this balance is paid with the recipient's next statement instead.",
};

export function BulkBar({
  ids,
  batch,
  offers,
  actions,
  methods,
  today,
  onResult,
}: {
  ids: string[];
  batch: { id: string; status: string };
  offers: OfferedAction[];
  actions: BulkActions;
  methods: { value: string; label: string }[];
  today: string;
  onResult: (result: ConfirmResult | undefined) => void;
}) {
  const n = ids.length;
  const noun = `${n.toLocaleString("en-US")} statement${n === 1 ? "" : "s"}`;
  const reasonField = (action: StatementAction) => (
    <Field label="Reason" hint={REASON_FIELD_HINTS[action]} required>
      {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
    </Field>
  );
  const blocked = offers.filter((o) => o.verdict.kind === "blocked");
  const button = (o: OfferedAction) => {
    const run = (action: ServerAction) => withIds(action, batch.id, ids);
    if (o.verdict.kind !== "allowed") {
      return (
        <Button key={o.action} size="sm" disabled aria-describedby={`bulk-why-${o.action}`}>
          {BULK_LABELS[o.action]}
        </Button>
      );
    }
    switch (o.action) {
      case "approve":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={
              <Button size="sm" variant="primary">
                {BULK_LABELS.approve}
              </Button>
            }
            title={`Approve ${noun}?`}
            description="Statements with an open flag are skipped and listed; override the flag with a reason first."
            confirmLabel="Approve"
            pendingLabel="Approving…"
            action={run(actions.approve)}
          />
        );
      case "unapprove":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={<Button size="sm">{BULK_LABELS.unapprove}</Button>}
            title={`Return ${noun} to draft?`}
            confirmLabel="Return to draft"
            action={run(actions.unapprove)}
          />
        );
      case "hold":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={<Button size="sm">{BULK_LABELS.hold}</Button>}
            title={`Hold ${noun}`}
            description="Held payouts are not paid and stay owed to the recipient. The reason is kept and shown."
            confirmLabel="Hold"
            pendingLabel="Holding…"
            tone="danger"
            size="md"
            action={run(actions.hold)}
          >
            {reasonField("hold")}
          </ConfirmDialog>
        );
      case "release":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={<Button size="sm">{BULK_LABELS.release}</Button>}
            title={`Release ${noun}`}
            description={
              batch.status === "draft"
                ? "Held statements go back to draft."
                : "Held statements without an open flag go back to approved (or carried when nothing is payable), ready to be paid; flagged ones are skipped and listed."
            }
            confirmLabel="Release"
            size="md"
            action={run(actions.release)}
          >
            {reasonField("release")}
          </ConfirmDialog>
        );
      case "carry_forward":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={<Button size="sm">{BULK_LABELS.carry_forward}</Button>}
            title={`Carry ${noun} forward`}
            description="Each held statement closes unpaid and its whole balance moves to the recipient's next statement, which pays it once that batch is approved. Other statements are skipped."
            confirmLabel="Carry forward"
            pendingLabel="Carrying…"
            size="md"
            action={run(actions.carryForward)}
          >
            {reasonField("carry_forward")}
          </ConfirmDialog>
        );
      case "mark_paid":
        return (
          <ConfirmDialog
            key={o.action}
            onConfirmed={onResult}
            trigger={
              <Button size="sm" variant="primary">
                {BULK_LABELS.mark_paid}
              </Button>
            }
            title={`Record payment of ${noun}`}
            description="Only approved statements are marked; each is paid exactly its payable amount."
            confirmLabel="Record payment"
            pendingLabel="Recording…"
            size="md"
            action={run(actions.markPaid)}
          >
            <PaymentFields methods={methods} today={today} />
          </ConfirmDialog>
        );
    }
  };
  return (
    <div className="flex flex-col gap-1">
      <div className="flex flex-wrap items-center gap-2">{offers.map(button)}</div>
      {blocked.map((o) =>
        o.verdict.kind === "blocked" ? (
          <p key={o.action} id={`bulk-why-${o.action}`} className="text-xs text-ink-muted">
            {BULK_LABELS[o.action].replace("…", "")}: {o.verdict.reason}
          </p>
        ) : null,
      )}
    </div>
  );
}

const BULK_LABELS: Record<StatementAction, string> = {
  approve: "Approve selected",
  unapprove: "Back to draft",
  hold: "Hold selected…",
  release: "Release hold…",
  carry_forward: "Carry forward…",
  mark_paid: "Mark selected paid…",
};
