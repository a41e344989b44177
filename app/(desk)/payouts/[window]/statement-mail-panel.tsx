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

const are = (n: number, verb: [string, string]) => (n === 1 ? verb[0] : verb[1]);

/**
 * What the send offers: the statements never emailed and those whose email failed to send, or (once every one was
 * emailed) all of them again; statements whose recipient has no usable email address (none, or not one mailbox) are
 * never sent one, and are said apart. Null: none can be emailed.
 */
function sendOffer(statements: number, emailed: number, noAddress: number, failed: number) {
  const addressed = statements - noAddress;
  const unemailed = Math.max(0, addressed - emailed + failed);
  if (addressed <= 0) return null;
  const unaddressed =
    noAddress === 0
      ? ""
      : ` ${countOf(noAddress, "recipient")} ${are(noAddress, ["has", "have"])} no usable email address.`;
  if (unemailed === 0)
    return {
      scope: "all",
      trigger: "Email statements again…",
      title: `Email all ${countOf(addressed, "statement")} again?`,
      description:
        "Every statement of this batch was emailed already (each statement's page can send its own again). " +
        `${EACH_GETS} Links sent before keep working until revoked.${unaddressed}`,
    };
  const sent = emailed - failed;
  const already =
    sent <= 0 ? "" : ` The ${countOf(sent, "statement")} emailed already ${are(sent, ["is", "are"])} not sent again.`;
  const retried =
    failed === 0
      ? ""
      : ` ${countOf(failed, "email")} of this batch failed to send (the mail server could not be reached or kept ` +
        "refusing for a while, the email of a payment could not be queued, or the links were revoked before it " +
        `went out) and ${are(failed, ["is", "are"])} sent again.`;
  return {
    scope: "unemailed",
    trigger: "Email statements…",
    title: `Email ${countOf(unemailed, "statement")}${sent <= 0 ? "" : " not yet emailed"}`,
    description: `${EACH_GETS}${already}${retried}${unaddressed}`,
  };
}

/**
 * Finance, approved or paid batch: email the statements not yet emailed (every one again once all were), or revoke
 * the links sent so far. Until the studio has said who issues its statements (`issuerSet`), it says so instead of
 * offering a send that is refused.
 */
export function StatementMailPanel(props: {
  gameId: string;
  batchId: string;
  statements: number;
  /** Statements ever emailed, those whose recipient has no usable address, and emailed ones that failed to send. */
  emailed: number;
  noAddress: number;
  failed: number;
  /** Times the batch's emails were queued: "again" is refused when one was queued since the page was drawn. */
  runs: number;
  issuerSet: boolean;
  actions: { send: ServerAction; revoke: ServerAction };
}) {
  const done = useNotice();
  const id = { batchId: props.batchId };
  const offer = sendOffer(props.statements, props.emailed, props.noAddress, props.failed);
  // A batch of no statement (nobody earned in the window) has nothing to email and no link to revoke.
  if (props.statements === 0)
    return <p className="max-w-xs text-sm text-ink-muted lg:text-right">This batch has no statement to email.</p>;
  return (
    <div className="flex flex-wrap items-center gap-2 lg:justify-end">
      {!offer ? (
        <p className="max-w-xs text-sm text-ink-muted">
          No recipient of this batch has a usable email address on record.
        </p>
      ) : props.issuerSet ? (
        <ConfirmDialog
          gameId={props.gameId}
          onConfirmed={done}
          trigger={<Button>{offer.trigger}</Button>}
          title={offer.title}
          description={offer.description}
          confirmLabel="Queue emails"
          pendingLabel="Queuing…"
          action={withFields(props.actions.send, { ...id, scope: offer.scope, runsSeen: String(props.runs) })}
        />
      ) : (
        <p className="max-w-xs text-sm text-ink-muted">{ISSUER_MISSING_NOTE}</p>
      )}
      <ConfirmDialog
        gameId={props.gameId}
        onConfirmed={done}
        trigger={<Button variant="ghost">Revoke statement links…</Button>}
        title="Revoke this batch's statement links?"
        description={
          "Links already emailed stop working at once (they answer as if the statement did not exist). Emails " +
          "queued and not yet sent are not sent: emailing the statements offers them again. Emails queued later " +
          "carry new links that work."
        }
        confirmLabel="Revoke links"
        tone="danger"
        action={withFields(props.actions.revoke, id)}
      />
    </div>
  );
}
