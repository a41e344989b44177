"use client";

import { countOf } from "@/lib/format";
import { ISSUER_MISSING_NOTE } from "@/app/_components/payouts/issuer-note";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { type ServerAction, withFields } from "@/app/_components/payouts/with-fields";

const EACH_GETS =
  "Each recipient with an email address gets their statement as a PDF, with a link to download it again. " +
  "Sending runs in the background; each statement's page shows its delivery log.";

const notSent = (n: number) => (n === 1 ? "is not sent again." : "are not sent again.");

/** What the send offers: the statements never emailed, or (once every one was) all of them again. */
function sendOffer(statements: number, unemailed: number) {
  const emailed = statements - unemailed;
  if (unemailed === 0)
    return {
      scope: "all",
      trigger: "Email statements again…",
      title: `Email all ${countOf(statements, "statement")} again?`,
      description:
        "Every statement of this batch was emailed already (each statement's page can send its own again). " +
        `${EACH_GETS} Links sent before keep working until revoked.`,
    };
  return {
    scope: "unemailed",
    trigger: "Email statements…",
    title:
      emailed === 0
        ? `Email ${countOf(statements, "statement")}`
        : `Email ${countOf(unemailed, "statement")} not yet emailed`,
    description:
      emailed === 0
        ? EACH_GETS
        : `${EACH_GETS} The ${countOf(emailed, "statement")} emailed already ${notSent(emailed)}`,
  };
}

/**
 * Finance, approved or paid batch: email the statements not yet emailed (every one again once all were), or revoke
 * the links sent so far. Until the studio has said who issues its statements (`issuerSet`), it says so instead of
 * offering a send that is refused.
 */
export function StatementMailPanel(props: {
  batchId: string;
  statements: number;
  unemailed: number;
  issuerSet: boolean;
  actions: { send: ServerAction; revoke: ServerAction };
}) {
  const done = useNotice();
  const id = { batchId: props.batchId };
  const offer = sendOffer(props.statements, props.unemailed);
  return (
    <div className="flex flex-wrap items-center gap-2 lg:justify-end">
      {props.issuerSet ? (
        <ConfirmDialog
          onConfirmed={done}
          trigger={<Button>{offer.trigger}</Button>}
          title={offer.title}
          description={offer.description}
          confirmLabel="Queue emails"
          pendingLabel="Queuing…"
          action={withFields(props.actions.send, { ...id, scope: offer.scope })}
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
