"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { withFields, type ServerAction } from "@/app/_components/payouts/with-fields";
import { Checkbox } from "@/app/_components/forms/checkbox";
import { Field } from "@/app/_components/forms/field";
import { useAnswerRound } from "@/app/_components/forms/answer-round";
import { useAskOnceMore } from "@/app/_components/forms/ask-once-more";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { confirmText, FileFields } from "./payment-file-fields";
import { useFocusFirstInvalid } from "@/app/_components/forms/focus-invalid";
import { FocusHere } from "@/app/_components/ui/focus-here";
import { Select } from "@/app/_components/forms/select";
import { Textarea } from "@/app/_components/forms/textarea";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { DateTime } from "@/app/_components/ui/date-time";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";
import { countOf, formatCount } from "@/lib/format";
import { proposedExecutionDate } from "@/lib/payments/schemas";
import type { CreatedFilesData } from "./payment-actions";
import { keepTyped } from "@/app/_components/forms/keep-typed";

/** The fields a refusal of the file can name that the form shows (useFocusFirstInvalid takes the focus to them). */
const SHOWN_FIELDS = ["method", "executionDate", "eurRate", "rateSource"] as const;

type CreateAction = (
  state: ActionResult<CreatedFilesData> | null,
  form: FormData,
) => Promise<ActionResult<CreatedFilesData>>;

/**
 * Making a payment file: method, the USD→EUR rate and its source (for EUR payouts), the execution date. The fields
 * are held in the page's state and the form is submitted by hand, so everything typed stays after any answer. Asked
 * once more before anything is written, with the method, the rate both ways and the day (the fields locked meanwhile:
 * Enter in one does not write the file). The answer (and who was left out) stays after the file took the last payable
 * statement and the form is no longer offered.
 */
export function CreateFileForm(props: {
  action: CreateAction;
  batchId: string;
  gameId: string;
  today: string;
  /** Whether a SEPA file may be made (an account to pay from), and the account or why not. */
  sepa: { offered: boolean; note: string };
  /** Whether a file can be made now; else why not, said in its place. */
  offered: boolean;
  unavailable: string;
  /** The batch's approved statements with a payable, which a file takes those of its method can pay of. */
  payable: number;
  /** The kinds of file that can pay someone of the batch now (fileMethodsThatCanPay). */
  payingMethods: readonly string[];
}) {
  const [state, dispatch, pending] = useActionState(keepTyped(props.action), null);
  // The first kind that pays someone, a provider's before the generic file (which pays every method).
  const usable = props.payingMethods.filter((m) => m !== "sepa" || props.sepa.offered);
  const first = usable.find((m) => m !== "generic") ?? usable[0] ?? "paypal";
  const [values, setValues] = useState({ method: first, eurRate: "", rateSource: "", executionDate: props.today });
  // The page is drawn with UTC's day; east of UTC just after midnight, the person's own day is proposed, unless typed.
  useEffect(() => {
    const proposed = proposedExecutionDate(props.today, new Date());
    if (proposed !== props.today)
      setValues((v) => (v.executionDate === props.today ? { ...v, executionDate: proposed } : v));
  }, [props.today]);
  // A method that pays no one any more (its file made, here or by a colleague, and the page drawn again) is not kept:
  // the first that still pays someone is chosen, as when the form first appeared.
  if (usable.length > 0 && !usable.includes(values.method)) setValues((v) => ({ ...v, method: first }));
  // Asked while no answer came since; after an answer, the focus goes to the field it names, else to the answer.
  const question = useAskOnceMore<HTMLFieldSetElement, HTMLButtonElement>(state);
  const confirming = question.asking;
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(form, state);
  const set = (key: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: event.target.value }));
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!confirming) {
      question.ask();
      return;
    }
    const data = new FormData();
    data.set(EXPECTED_GAME_FIELD, props.gameId);
    data.set("batchId", props.batchId);
    for (const [k, v] of Object.entries(values)) data.set(k, v);
    startTransition(() => dispatch(data));
  };
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const namesShownField = SHOWN_FIELDS.some((field) => errors[field]);
  // Each answer counted, so that one saying what the last said (the same refusal again) takes the focus again.
  const round = useAnswerRound(state);
  const result = state?.ok ? state.data : undefined;
  const answer = (
    <>
      <ResultMessage result={state} />
      {result && result.refused.length > 0 ? (
        <SimpleTable
          caption={
            result.refusedCount > result.refused.length
              ? `Left out of the file: the first ${result.refused.length} of ${formatCount(result.refusedCount)}`
              : "Left out of the file"
          }
          dense
          head={
            <>
              <Th>Recipient</Th>
              <Th>Why</Th>
            </>
          }
        >
          {result.refused.map((r) => (
            <Tr key={r.recipientPlayerId}>
              <RowTh>{r.recipientPlayerId}</RowTh>
              <Td>{r.reason}</Td>
            </Tr>
          ))}
        </SimpleTable>
      ) : null}
    </>
  );
  return (
    <div className="flex flex-col gap-3">
      {props.offered ? (
        <>
          <p className="text-sm text-ink-muted">
            Pays every approved statement whose recipient the method can pay; they move to “in payment” until the
            provider's results are imported. Nothing is paid by making the file.
          </p>
          <form
            ref={form}
            method="post"
            onSubmit={onSubmit}
            noValidate
            aria-label="Make a payment file"
            className="grid gap-3 sm:grid-cols-2"
          >
            <fieldset disabled={confirming || pending} className="contents">
              <legend className="sr-only">The file</legend>
              <FileFields
                values={values}
                set={set}
                errors={errors}
                sepa={props.sepa}
                payingMethods={props.payingMethods}
              />
            </fieldset>
            <div className="sm:col-span-2">
              {confirming || pending ? (
                <fieldset ref={question.question} tabIndex={-1} className="flex flex-col gap-2 outline-none">
                  <legend className="text-sm text-ink">{confirmText(values, props.payable, props.today)}</legend>
                  <div className="flex gap-2">
                    <Button type="submit" variant="primary" pending={pending} pendingLabel="Writing…">
                      Make payment file
                    </Button>
                    <Button type="button" variant="secondary" disabled={pending} onClick={question.goBack}>
                      Change
                    </Button>
                  </div>
                </fieldset>
              ) : (
                <Button ref={question.askButton} type="submit" variant="primary">
                  Make payment file…
                </Button>
              )}
            </div>
          </form>
        </>
      ) : (
        <p className="text-sm text-ink-muted">{props.unavailable}</p>
      )}
      {/* An answer that names no field takes the focus: the button pressed is gone, or the form with it. */}
      {state && !namesShownField ? <FocusHere key={round}>{answer}</FocusHere> : answer}
    </div>
  );
}

/**
 * Cancelling a live file (its statements go back to approved), with a reason. Says who downloaded it last: a file
 * someone downloaded may have been uploaded to the provider, and cancelling it would let its statements be paid twice.
 */
export function CancelFileButton(props: {
  action: ServerAction;
  fileId: string;
  fileName: string;
  gameId: string;
  downloads: { count: number; lastBy: string | null; lastAt: string | null };
  /**
   * The file's payments the provider's results settled, and those it reported pending (it holds them): either way it
   * has the file, and may still pay the rest.
   */
  provider: { settled: number; held: number };
}) {
  const onConfirmed = useNoticeAndRefresh();
  const { downloads, provider } = props;
  const answered = [
    provider.settled > 0 ? `answered for ${countOf(provider.settled, "payment")}` : null,
    provider.held > 0 ? `holds ${countOf(provider.held, "payment")} as pending` : null,
  ].filter((part): part is string => part !== null);
  return (
    <ConfirmDialog
      gameId={props.gameId}
      onConfirmed={onConfirmed}
      trigger={
        <Button variant="ghost" size="sm">
          Cancel…<span className="sr-only"> {props.fileName}</span>
        </Button>
      }
      title={`Cancel ${props.fileName}?`}
      description={
        "Its statements still in payment go back to approved, payable again. Cancel only a file the provider never " +
        "received: if it was uploaded, import its results instead."
      }
      confirmLabel="Cancel the file"
      cancelLabel="Keep it"
      tone="danger"
      size="md"
      action={withFields(props.action, { fileId: props.fileId, downloadsSeen: String(downloads.count) })}
    >
      {(typed, errors) => (
        <>
          <p className="text-sm text-ink">
            {downloads.count === 0 ? (
              "Never downloaded from the desk."
            ) : (
              <>
                Downloaded {countOf(downloads.count, "time")}, last by {downloads.lastBy ?? "someone"}
                {downloads.lastAt ? (
                  <>
                    {" "}
                    on <DateTime value={downloads.lastAt} />
                  </>
                ) : null}
                : make sure it was not uploaded to the provider.
              </>
            )}
          </p>
          {answered.length > 0 ? (
            <Checkbox
              name="restUnpaid"
              value="confirmed"
              defaultChecked={typed.restUnpaid === "confirmed"}
              label="The provider confirmed it will not pay what is still in payment in this file"
              hint={
                `It ${answered.join(" and ")} of this file, so it has the file: what is still in payment goes back ` +
                "to approved, and would be paid twice if it paid those too (a bank's rejection of the whole file " +
                "confirms it)."
              }
              error={errors.restUnpaid}
            />
          ) : null}
          <Field label="Reason" error={errors.reason} required>
            {(control) => <Textarea {...control} name="reason" maxLength={500} defaultValue={typed.reason} />}
          </Field>
        </>
      )}
    </ConfirmDialog>
  );
}

type PaidShown = { id: string; label: string; paidAt: string };

/** The payment a return names: the statement and when it was recorded paid, as the page showed it. */
function paymentShown(p: PaidShown): string {
  return `${p.id}@${p.paidAt}`;
}

/**
 * Records a paid payment as returned (one that came back, or undoing a wrong "paid"), with a reason, by someone other
 * than who recorded it: one of the listed paid statements (the window page), or the one statement of a recipient's
 * page.
 */
export function ReturnPaymentButton(props: {
  action: ServerAction;
  /** Each paid statement offered, with when it was recorded paid (a payment made again since is refused). */
  paid: PaidShown[];
  triggerLabel?: string;
  /** The game the page was shown for. */
  gameId: string;
}) {
  const onConfirmed = useNoticeAndRefresh();
  const only = props.paid.length === 1 ? props.paid[0] : undefined;
  return (
    <ConfirmDialog
      gameId={props.gameId}
      onConfirmed={onConfirmed}
      trigger={<Button variant="secondary">{props.triggerLabel ?? "Return a payment…"}</Button>}
      title="Record a payment as returned"
      description={
        "The statement becomes returned and its amount is owed again; the recipient (with an email address) is " +
        "emailed their statement, saying why: that the payment came back, or that it was recorded by mistake. " +
        "Someone other than the person who recorded the payment does this."
      }
      confirmLabel="Record as returned"
      pendingLabel="Recording…"
      tone="danger"
      size="md"
      action={props.action}
    >
      {(typed, errors) => (
        <div className="flex flex-col gap-3">
          {only ? (
            <p className="text-sm text-ink">
              <input type="hidden" name="payment" value={paymentShown(only)} />
              Paid statement: {only.label}
            </p>
          ) : (
            <Field label="Paid statement" error={errors.payment} required>
              {(control) => (
                <Select
                  {...control}
                  name="payment"
                  // Nothing chosen until the person chooses: a return moves the money owed again.
                  defaultValue={typed.payment ?? ""}
                  placeholder="Choose the payment…"
                  options={props.paid.map((p) => ({ value: paymentShown(p), label: p.label }))}
                />
              )}
            </Field>
          )}
          <Field
            label="Reason"
            hint="What went wrong, in words for the recipient: kept with the return and printed on their statement."
            error={errors.reason}
            required
          >
            {(control) => <Textarea {...control} name="reason" maxLength={500} defaultValue={typed.reason} />}
          </Field>
          <Checkbox
            name="neverSent"
            value="yes"
            label="It was never sent: “paid” was recorded by mistake"
            hint={
              "The statement is owed again, but nothing came back: no flag keeps the recipient's next payments back, " +
              "and the ledger files post it back to clearing. Leave it unticked for money sent back to you."
            }
            defaultChecked={typed.neverSent === "yes"}
            error={errors.neverSent}
          />
        </div>
      )}
    </ConfirmDialog>
  );
}

/** Says what the action did in the page's message area, and shows the page as it now is. */
function useNoticeAndRefresh(): (result: ConfirmResult | undefined) => void {
  const router = useRouter();
  const notice = useNotice();
  return (result) => {
    notice(result);
    router.refresh();
  };
}
