"use client";

import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { type ServerAction, withFields } from "@/app/_components/payouts/with-fields";

export function SendStatementButton(props: {
  gameId: string;
  batchId: string;
  statementId: string;
  /** The statement's emails the page showed: a send since (a colleague, another tab) refuses this one. */
  sendsSeen: number;
  to: string;
  action: ServerAction;
}) {
  const done = useNotice();
  return (
    <ConfirmDialog
      gameId={props.gameId}
      onConfirmed={done}
      trigger={<Button size="sm">Email statement…</Button>}
      title="Email this statement"
      description={`Sends the statement PDF, with a download link, to ${props.to}.`}
      confirmLabel="Queue email"
      pendingLabel="Queuing…"
      action={withFields(props.action, {
        batchId: props.batchId,
        statementId: props.statementId,
        sendsSeen: String(props.sendsSeen),
      })}
    />
  );
}
