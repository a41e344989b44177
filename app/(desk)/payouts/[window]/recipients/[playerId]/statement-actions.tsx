"use client";

import { Fragment } from "react";
import { Button } from "@/app/_components/ui/button";
import type { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import type { StatementAction } from "@/lib/payouts/offered-actions";
import type { OfferedAction } from "@/lib/payouts/offered-actions";
import { StatementActionDialog, type StatementDialogText } from "@/app/_components/payouts/statement-action-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { formatUsdText } from "@/lib/format";

type ServerAction = Parameters<typeof ConfirmDialog>[0]["action"];

export type StatementActionsProps = {
  /** The game the page was shown for. */
  gameId: string;
  batchId: string;
  statementId: string;
  /** What the statement pays: the amount a recorded payment is. */
  payableUsd: string;
  /** What lib/payouts/offered-actions.ts offers this person for this statement (allowed, or blocked with a reason). */
  offers: OfferedAction[];
  actions: Record<StatementAction, ServerAction>;
  methods: { value: string; label: string }[];
  today: string;
};

/**
 * The actions one person can take on one statement; one that is not theirs to take now says why. What an action did
 * shows in the page's message area (its NoticeProvider).
 */
export function StatementActions(props: StatementActionsProps) {
  return <StatementButtons {...props} />;
}

/** What each action's dialog says about this one statement. */
const TEXTS: Record<StatementAction, StatementDialogText> = {
  approve: {
    label: "Approve",
    variant: "primary",
    title: "Approve this statement?",
    description: "It will be paid when the batch is approved and the payment recorded.",
    confirmLabel: "Approve",
  },
  unapprove: { label: "Back to draft", title: "Return this statement to draft?", confirmLabel: "Return to draft" },
  hold: {
    label: "Hold…",
    variant: "danger",
    title: "Hold this payout",
    description: "A held payout is not paid and stays owed to the recipient. The reason is kept.",
    confirmLabel: "Hold payout",
    reasonHint: "At least 5 characters; the recipient reads it on their statement.",
  },
  release: {
    label: "Release hold…",
    title: "Release the hold",
    confirmLabel: "Release",
    reasonHint: "Why the hold no longer applies.",
  },
  carry_forward: {
    label: "Carry forward…",
    title: "Carry this balance forward",
    description:
      "The statement closes unpaid and its whole balance moves to the recipient's next statement, which pays it " +
      "once that batch is approved.",
    confirmLabel: "Carry forward",
    reasonHint: "Why this balance is paid with the next statement instead.",
  },
  mark_paid: {
    label: "Mark paid…",
    variant: "primary",
    title: "Record the payment of this statement",
    confirmLabel: "Record payment",
  },
};

function StatementButtons(props: StatementActionsProps) {
  const { gameId, batchId, statementId, offers, actions, methods, today } = props;
  const done = useNotice();
  const fields =
    (action: ServerAction): ServerAction =>
    (form) => {
      form.set("batchId", batchId);
      form.set("ids", statementId);
      return action(form);
    };
  const render = ({ action, verdict }: OfferedAction) => {
    if (verdict.kind !== "allowed") {
      return (
        <Button aria-disabled aria-describedby={`why-${action}`}>
          {TEXTS[action].label}
        </Button>
      );
    }
    return (
      <StatementActionDialog
        action={action}
        text={
          action === "mark_paid"
            ? { ...TEXTS[action], title: `Record the payment of this statement: ${formatUsdText(props.payableUsd)}` }
            : TEXTS[action]
        }
        run={fields(actions[action])}
        onConfirmed={done}
        methods={methods}
        today={today}
        gameId={gameId}
      />
    );
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
            {TEXTS[action].label.replace("…", "")}: {verdict.reason}
          </p>
        ) : null,
      )}
    </div>
  );
}
