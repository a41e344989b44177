"use client";

import { countOf } from "@/lib/format";
import { ISSUER_MISSING_NOTE } from "@/app/_components/payouts/issuer-note";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { type ServerAction, withFields } from "@/app/_components/payouts/with-fields";

/**
 * Finance, approved or paid batch: email every recipient their statement, or revoke the links sent so far. Until the
 * studio has said who issues its statements (`issuerSet`), it says so instead of offering a send that is refused.
 */
export function StatementMailPanel(props: {
  batchId: string;
  statements: number;
  issuerSet: boolean;
  actions: { send: ServerAction; revoke: ServerAction };
}) {
  const done = useNotice();
  const id = { batchId: props.batchId };
  return (
    <div className="flex flex-wrap items-center gap-2 lg:justify-end">
      {props.issuerSet ? (
        <ConfirmDialog
          onConfirmed={done}
          trigger={<Button>Email statements…</Button>}
          title={`Email ${countOf(props.statements, "statement")}`}
          description={
            "Each recipient with an email address gets their statement as a PDF, with a link to download it again. " +
            "Sending runs in the background; each statement's page shows its delivery log."
          }
          confirmLabel="Queue emails"
          pendingLabel="Queuing…"
          action={withFields(props.actions.send, id)}
        />
      ) : (
        <p className="max-w-xs text-sm text-ink-muted">{ISSUER_MISSING_NOTE}</p>
      )}
      <ConfirmDialog
        onConfirmed={done}
        trigger={<Button variant="ghost">Revoke statement links…</Button>}
        title="Revoke this batch's statement links?"
        description={
          "Links already emailed stop working at once (they answer as if the statement did not exist). Emails sent " +
          "later carry new links that work."
        }
        confirmLabel="Revoke links"
        tone="danger"
        action={withFields(props.actions.revoke, id)}
      />
    </div>
  );
}
