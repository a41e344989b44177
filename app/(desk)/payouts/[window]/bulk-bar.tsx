"use client";

import { countOf, formatUsdText } from "@/lib/format";
import { formatUsd, sumMoney } from "@/lib/money";
import { Button } from "@/app/_components/ui/button";
import type { ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import type { OfferedAction, StatementAction } from "@/lib/payouts/offered-actions";
import { StatementActionDialog, type StatementDialogText } from "@/app/_components/payouts/statement-action-dialog";

type ServerAction = (form: FormData) => Promise<ConfirmResult>;

/** The server action of each statement action, applied to the selected statements. */
export type BulkActions = Record<StatementAction, ServerAction>;

function withIds(action: ServerAction, batchId: string, ids: string[]): (form: FormData) => Promise<ConfirmResult> {
  return (form) => {
    form.set("batchId", batchId);
    for (const id of ids) form.append("ids", id);
    return action(form);
  };
}

export function BulkBar({
  ids,
  applicableIds,
  payableUsdOf,
  batch,
  offers,
  actions,
  methods,
  today,
  onResult,
}: {
  ids: string[];
  /**
   * The selected statements an action applies to, as the page shows them: what its dialog counts. Marking paid sends
   * only these (the ones shown as owed), so one that moved since (a colleague paid, filed or held it) is refused by
   * name instead of quietly left out; the other actions send the whole selection and skip the rest, listed.
   */
  applicableIds: (action: StatementAction) => string[];
  /** A statement's payable as the page shows it (undefined for one not on this page). */
  payableUsdOf: (id: string) => string | undefined;
  batch: { id: string; status: string; gameId: string };
  offers: OfferedAction[];
  actions: BulkActions;
  methods: { value: string; label: string }[];
  today: string;
  onResult: (result: ConfirmResult | undefined) => void;
}) {
  const n = ids.length;
  /** What the statements pay in all, as the page shows them; none when one is not on this page. */
  const totalOf = (chosen: string[]): string | undefined => {
    const amounts = chosen.map(payableUsdOf);
    return amounts.every((a) => a !== undefined) ? formatUsdText(formatUsd(sumMoney(amounts))) : undefined;
  };
  const blocked = offers.filter((o) => o.verdict.kind === "blocked");
  const button = (o: OfferedAction) => {
    const applicable = applicableIds(o.action);
    const run = (action: ServerAction) => withIds(action, batch.id, o.action === "mark_paid" ? applicable : ids);
    if (o.verdict.kind !== "allowed") {
      return (
        <Button key={o.action} size="sm" aria-disabled aria-describedby={`bulk-why-${o.action}`}>
          {BULK_LABELS[o.action]}
        </Button>
      );
    }
    return (
      <StatementActionDialog
        key={o.action}
        action={o.action}
        text={
          o.action === "mark_paid"
            ? markPaidText(countOf(applicable.length, "statement"), n - applicable.length, totalOf(applicable))
            : withOthers(
                bulkText(o.action, countOf(applicable.length, "statement"), batch.status),
                n - applicable.length,
              )
        }
        run={run(actions[o.action])}
        onConfirmed={onResult}
        size="sm"
        methods={methods}
        today={today}
        gameId={batch.gameId}
      />
    );
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

/** What each bulk action's dialog says about the selection (`noun`: "3 statements"). */
function bulkText(action: StatementAction, noun: string, batchStatus: string): StatementDialogText {
  const label = BULK_LABELS[action];
  switch (action) {
    case "approve":
      return {
        label,
        variant: "primary",
        title: `Approve ${noun}?`,
        description: "Statements with an open flag are skipped and listed; override the flag with a reason first.",
        confirmLabel: "Approve",
        pendingLabel: "Approving…",
      };
    case "unapprove":
      return { label, title: `Return ${noun} to draft?`, confirmLabel: "Return to draft" };
    case "hold":
      return {
        label,
        title: `Hold ${noun}`,
        description: "Held payouts are not paid and stay owed to the recipient. The reason is kept and shown.",
        confirmLabel: "Hold",
        pendingLabel: "Holding…",
        reasonHint: "At least 5 characters; the recipients read it on their statements, and the audit log keeps it.",
      };
    case "release":
      return {
        label,
        title: `Release ${noun}`,
        description:
          batchStatus === "draft"
            ? "Held statements go back to draft."
            : "Held statements without an open flag go back to approved (or carried when nothing is payable), " +
              "ready to be paid; flagged ones are skipped and listed.",
        confirmLabel: "Release",
        reasonHint: "Why the hold no longer applies.",
      };
    case "carry_forward":
      return {
        label,
        title: `Carry ${noun} forward`,
        description:
          "Each held statement closes unpaid and its whole balance moves to the recipient's next statement, which " +
          "pays it once that batch is approved. Other statements are skipped.",
        confirmLabel: "Carry forward",
        pendingLabel: "Carrying…",
        reasonHint: "Why this balance is paid with the recipient's next statement instead.",
      };
    case "mark_paid":
      return markPaidText(noun, 0, undefined);
  }
}

/** A dialog that counts the statements its action applies to says the others selected are left as they are. */
function withOthers(text: StatementDialogText, others: number): StatementDialogText {
  if (others === 0) return text;
  const left = `${countOf(others, "other selected statement")} ${others === 1 ? "is" : "are"} left as ${
    others === 1 ? "it is" : "they are"
  } (this does not apply to ${others === 1 ? "it" : "them"} now).`;
  return { ...text, description: text.description ? `${left} ${text.description}` : left };
}

/**
 * Marking paid names only the statements it may record; others selected (paid, in a file, held, or with a flag raised
 * since approval that stops their payment) are said to be left out.
 */
function markPaidText(noun: string, notOwed: number, totalUsd: string | undefined): StatementDialogText {
  const left =
    notOwed === 0
      ? ""
      : `${countOf(notOwed, "other selected statement")} ${notOwed === 1 ? "is" : "are"} not owed, or flagged ` +
        "since approval: left out. ";
  return {
    label: BULK_LABELS.mark_paid,
    variant: "primary",
    title: `Record payment of ${noun}${totalUsd ? `: ${totalUsd}` : ""}`,
    description: `${left}Each statement is paid exactly its payable amount.`,
    confirmLabel: "Record payment",
    pendingLabel: "Recording…",
  };
}
