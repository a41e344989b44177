"use client";

import { Field } from "@/app/_components/forms/field";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog } from "@/app/_components/ui/confirm-dialog";
import type { BatchAction, Verdict } from "@/lib/payouts/offered-actions";
import { PaymentFields } from "@/app/_components/payouts/payment-fields";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { type ServerAction, withFields } from "@/app/_components/payouts/with-fields";
import { countOf, formatCount, formatUsdText } from "@/lib/format";

export type BatchPanelActions = {
  prepare: ServerAction;
  approveUnflagged: ServerAction;
  approveBatch: ServerAction;
  markPaid: ServerAction;
  discard: ServerAction;
};

export type BatchPanelProps = {
  /** The game the page was shown for, sent with every action. */
  gameId: string;
  windowKey: string;
  snapshotId: string;
  snapshotVersion: number;
  /**
   * `revision`: the batch's revision read before `counts`, sent back with Approve all unflagged, Approve batch and
   * Mark approved paid.
   */
  batch: { id: string; status: string; preparedByEmail: string; preparedByMe: boolean; revision: string } | null;
  counts: { draft: number; approved: number; held: number; payableApprovedUsd: string; total: number };
  /** What lib/payouts/offered-actions.ts allows this person for each batch action. */
  offers: Record<BatchAction, Verdict> | null;
  twoPersonRule: boolean;
  /** Why no batch may be prepared for this window now (lib/payouts/batches.ts prepareRefusal), when there is none. */
  prepareRefused: string | null;
  minPayoutUsd: string;
  actions: BatchPanelActions;
  methods: { value: string; label: string }[];
  today: string;
};

/**
 * The buttons that move a window's payout batch along: prepare, approve, pay, discard. Finance only. Only the actions
 * this person can take are buttons; one that applies but is not theirs to take says why instead.
 */
export function BatchPanel(props: BatchPanelProps) {
  const done = useNotice();
  const { batch, counts, actions, offers } = props;
  if (!batch || !offers) {
    if (props.prepareRefused) return <p className="max-w-md text-sm text-ink-muted">{props.prepareRefused}</p>;
    return (
      <ConfirmDialog
        gameId={props.gameId}
        onConfirmed={done}
        trigger={<Button variant="primary">Prepare payout batch</Button>}
        title="Prepare the payout batch"
        description={
          `One statement per recipient from snapshot version ${props.snapshotVersion}, taking in balances ` +
          `carried from earlier statements. Payables under ${formatUsdText(props.minPayoutUsd)} roll to the next ` +
          `statement.`
        }
        confirmLabel="Prepare"
        pendingLabel="Preparing…"
        action={withFields(actions.prepare, { window: props.windowKey, snapshotId: props.snapshotId })}
      />
    );
  }
  const id = { batchId: batch.id };
  // The figures these two dialogs show: refused when the batch moved on since they were read.
  const drawn = { batchId: batch.id, revision: batch.revision };
  const allowed = (a: BatchAction) => offers[a].kind === "allowed";
  const approveBatch = offers.approve_batch;
  const drafts = `${countOf(counts.draft, "statement")} ${counts.draft === 1 ? "is" : "are"} in draft`;
  const draftNote = `${drafts}. Flagged ones stay in draft and are listed.`;
  // The main button is the next step this person can take: approve what is unflagged while drafts remain.
  const approveBatchIsMain = allowed("approve_batch") && !allowed("approve_unflagged");
  // The drafts' reason, said once: under the batch's when it is the same.
  const sameReason =
    approveBatch.kind === "blocked" &&
    offers.approve_unflagged.kind === "blocked" &&
    approveBatch.reason === offers.approve_unflagged.reason;
  const unflaggedWhy = sameReason ? "approve-batch-why" : "approve-unflagged-why";
  return (
    <div className="flex flex-col items-start gap-1 lg:max-w-md lg:items-end">
      <div className="flex flex-wrap items-center gap-2 lg:justify-end">
        {allowed("approve_unflagged") ? (
          <ConfirmDialog
            gameId={props.gameId}
            onConfirmed={done}
            trigger={<Button variant="primary">Approve all unflagged</Button>}
            title="Approve every draft statement without an open flag?"
            description={draftNote}
            confirmLabel="Approve"
            pendingLabel="Approving…"
            action={withFields(actions.approveUnflagged, drawn)}
          />
        ) : offers.approve_unflagged.kind === "blocked" ? (
          <Button aria-disabled aria-describedby={unflaggedWhy}>
            Approve all unflagged
          </Button>
        ) : null}
        {approveBatch.kind === "allowed" ? (
          <ConfirmDialog
            gameId={props.gameId}
            onConfirmed={done}
            trigger={<Button variant={approveBatchIsMain ? "primary" : "secondary"}>Approve batch</Button>}
            title="Approve this payout batch?"
            description={
              props.twoPersonRule
                ? `Two-person rule: prepared by ${batch.preparedByEmail}; you approve it.`
                : "The two-person rule is off."
            }
            confirmLabel="Approve batch"
            pendingLabel="Approving…"
            action={withFields(actions.approveBatch, drawn)}
          >
            <p className="text-sm text-ink">
              {formatCount(counts.approved)} approved ({formatUsdText(props.counts.payableApprovedUsd)} payable),{" "}
              {formatCount(counts.held)} held. Approving freezes every figure to snapshot version{" "}
              {props.snapshotVersion}.
            </p>
          </ConfirmDialog>
        ) : approveBatch.kind === "blocked" && approveBatch.code !== "two_person_rule" ? (
          <Button aria-disabled aria-describedby="approve-batch-why">
            Approve batch
          </Button>
        ) : null}
        {allowed("mark_all_paid") ? (
          <ConfirmDialog
            gameId={props.gameId}
            onConfirmed={done}
            trigger={<Button variant="primary">Mark approved paid…</Button>}
            title={`Record payment of ${formatCount(counts.approved)} approved statements`}
            description={
              `${formatUsdText(props.counts.payableApprovedUsd)} in total; each statement is paid exactly ` +
              "its payable. Held statements are not touched. Nothing is recorded while a statement has a flag " +
              "raised since approval that stops its payment (it is named): override or hold it first."
            }
            confirmLabel="Record payment"
            pendingLabel="Recording…"
            size="md"
            action={withFields(actions.markPaid, drawn)}
          >
            {(_typed, errors) => <PaymentFields methods={props.methods} today={props.today} errors={errors} />}
          </ConfirmDialog>
        ) : offers.mark_all_paid.kind === "blocked" ? (
          <Button aria-disabled aria-describedby="mark-paid-why">
            Mark approved paid…
          </Button>
        ) : null}
        {allowed("discard") ? (
          <ConfirmDialog
            gameId={props.gameId}
            onConfirmed={done}
            trigger={<Button variant="ghost">Discard draft…</Button>}
            title="Discard this draft batch?"
            description="Its statements are kept for the record; balances they carried in are freed for the next batch."
            confirmLabel="Discard"
            tone="danger"
            size="md"
            action={withFields(actions.discard, id)}
          >
            {(_typed, errors) => (
              <Field label="Reason" error={errors.reason} required>
                {(control) => <Textarea {...control} name="reason" maxLength={1000} />}
              </Field>
            )}
          </ConfirmDialog>
        ) : null}
      </div>
      {approveBatch.kind === "blocked" ? (
        <p id="approve-batch-why" className="text-xs text-ink-muted lg:text-right">
          {approveBatch.code === "two_person_rule"
            ? `Approving the batch: ${approveBatch.reason}`
            : approveBatch.reason}
        </p>
      ) : null}
      {offers.mark_all_paid.kind === "blocked" ? (
        <p id="mark-paid-why" className="text-xs text-ink-muted lg:text-right">
          {offers.mark_all_paid.reason}
        </p>
      ) : null}
      {/* Why the drafts cannot be approved now (every one flagged, or the window's open flags). */}
      {offers.approve_unflagged.kind === "blocked" && !sameReason ? (
        <p id="approve-unflagged-why" className="text-xs text-ink-muted lg:text-right">
          Approving the statements: {offers.approve_unflagged.reason}
        </p>
      ) : null}
    </div>
  );
}
