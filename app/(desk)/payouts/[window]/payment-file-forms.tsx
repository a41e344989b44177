"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { withFields, type ServerAction } from "@/app/_components/payouts/with-fields";
import { Field } from "@/app/_components/forms/field";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { Textarea } from "@/app/_components/forms/textarea";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { DateTime } from "@/app/_components/ui/date-time";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";
import { Money } from "@/core/money";
import { countOf } from "@/lib/format";
import { convertUsd, fxRateSchema } from "@/lib/payments/fx";
import { FILE_METHOD_LABELS, FILE_METHODS } from "@/lib/payments/schemas";
import type { CreatedFilesData } from "./payment-actions";

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
}) {
  const [state, dispatch, pending] = useActionState(props.action, null);
  const [values, setValues] = useState({ method: "paypal", eurRate: "", rateSource: "", executionDate: props.today });
  const [confirming, setConfirming] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  // Focus follows the question: to its answer when asked, back to the first button when changed.
  useEffect(() => {
    if (confirming) {
      asked.current = true;
      confirm.current?.focus();
    } else if (asked.current) ask.current?.focus();
  }, [confirming]);
  // An answer ends the question: the fields can be changed again (a refusal names one).
  useEffect(() => {
    if (state) setConfirming(false);
  }, [state]);
  const set = (key: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: event.target.value }));
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!confirming) {
      setConfirming(true);
      return;
    }
    const data = new FormData();
    data.set(EXPECTED_GAME_FIELD, props.gameId);
    data.set("batchId", props.batchId);
    for (const [k, v] of Object.entries(values)) data.set(k, v);
    startTransition(() => dispatch(data));
  };
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const result = state?.ok ? state.data : undefined;
  return (
    <div className="flex flex-col gap-3">
      {props.offered ? (
        <>
          <p className="text-sm text-ink-muted">
            Pays every approved statement whose recipient the method can pay; they move to “in payment” until the
            provider's results are imported. Nothing is paid by making the file.
          </p>
          <form
            method="post"
            onSubmit={onSubmit}
            noValidate
            aria-label="Make a payment file"
            className="grid gap-3 sm:grid-cols-2"
          >
            <fieldset disabled={confirming || pending} className="contents">
              <legend className="sr-only">The file</legend>
              <FileFields values={values} set={set} errors={errors} sepa={props.sepa} />
            </fieldset>
            <div className="sm:col-span-2">
              {confirming || pending ? (
                <fieldset className="flex flex-col gap-2">
                  <legend className="text-sm text-ink">{confirmText(values, props.payable)}</legend>
                  <div className="flex gap-2">
                    <Button ref={confirm} type="submit" variant="primary" pending={pending} pendingLabel="Writing…">
                      Make payment file
                    </Button>
                    <Button type="button" variant="secondary" disabled={pending} onClick={() => setConfirming(false)}>
                      Change
                    </Button>
                  </div>
                </fieldset>
              ) : (
                <Button ref={ask} type="submit" variant="primary">
                  Make payment file…
                </Button>
              )}
            </div>
          </form>
        </>
      ) : (
        <p className="text-sm text-ink-muted">{props.unavailable}</p>
      )}
      <ResultMessage result={state} />
      {result && result.refused.length > 0 ? (
        <SimpleTable
          caption="Left out of the file"
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
    </div>
  );
}

type FileValues = { method: string; eurRate: string; rateSource: string; executionDate: string };

/** The question asked before the file is written: what it pays, at which rate (both ways), on which day. */
function confirmText(values: FileValues, payable: number): string {
  const method = FILE_METHOD_LABELS[values.method as keyof typeof FILE_METHOD_LABELS] ?? values.method;
  const rate = fxRateSchema.safeParse(values.eurRate);
  const atRate = rate.success
    ? ` EUR payouts at ${values.eurRate.trim()} EUR for one USD (1 EUR = ` +
      `${new Money(1).div(new Money(rate.data)).toDecimalPlaces(4).toFixed(4)} USD).`
    : "";
  const day = values.method === "sepa" ? ` The bank pays on ${values.executionDate.trim()}.` : "";
  return (
    `Write a ${method} file now? It takes those of the ${countOf(payable, "payable statement")} it can pay, which ` +
    `stay “in payment” until its results are imported or it is cancelled.${atRate}${day}`
  );
}

function FileFields(props: {
  values: FileValues;
  set: (key: keyof FileValues) => (event: { target: { value: string } }) => void;
  errors: Record<string, string | undefined>;
  sepa: { offered: boolean; note: string };
}) {
  const { values, set, errors } = props;
  return (
    <>
      <Field
        label="Method"
        hint={!props.sepa.offered || values.method === "sepa" ? props.sepa.note : undefined}
        error={errors.method}
        required
      >
        {(control) => (
          <Select
            {...control}
            name="method"
            value={values.method}
            onChange={set("method")}
            options={FILE_METHODS.map((m) =>
              m === "sepa" && !props.sepa.offered
                ? { value: m, label: `${FILE_METHOD_LABELS[m]} (not available)`, disabled: true }
                : { value: m, label: FILE_METHOD_LABELS[m] },
            )}
          />
        )}
      </Field>
      <Field
        label="Execution date"
        hint={
          values.method === "sepa"
            ? "The day the bank should pay (YYYY-MM-DD), written into the file."
            : "Not in the file: the provider pays when the file is uploaded. Results imported without a paid-on " +
              "day are recorded as paid on this day once it has come: give the day you will upload it (YYYY-MM-DD)."
        }
        error={errors.executionDate}
      >
        {(control) => (
          <Input {...control} name="executionDate" value={values.executionDate} onChange={set("executionDate")} />
        )}
      </Field>
      <Field
        label="USD→EUR rate"
        hint={
          "EUR for one USD, e.g. 0.92345. Needed for SEPA and any EUR payout; the ledger stays in USD. The ECB " +
          "quotes the other way round (USD for one EUR, e.g. 1.0829): type 1 divided by its figure."
        }
        error={errors.eurRate}
      >
        {(control) => (
          <>
            <Input {...control} name="eurRate" inputMode="decimal" value={values.eurRate} onChange={set("eurRate")} />
            <RateReadout rate={values.eurRate} />
          </>
        )}
      </Field>
      <Field
        label="Rate source"
        hint="Where the rate comes from, e.g. ECB reference rate 2026-10-01."
        error={errors.rateSource}
      >
        {(control) => <Input {...control} name="rateSource" value={values.rateSource} onChange={set("rateSource")} />}
      </Field>
    </>
  );
}

/**
 * What the rate typed does, in both directions, as it is typed: a rate typed the wrong way round (the ECB's USD for
 * one EUR) passes every range check, and would pay each EUR recipient about 17 % more.
 */
function RateReadout({ rate }: { rate: string }) {
  const valid = fxRateSchema.safeParse(rate);
  const said = valid.success
    ? `USD 100.00 is paid as EUR ${convertUsd("100.00", valid.data)}: 1 EUR = ` +
      `${new Money(1).div(new Money(valid.data)).toDecimalPlaces(4).toFixed(4)} USD at this rate.`
    : "";
  // Always there, so that a screen reader hears each new reading of the rate.
  return (
    <p className="mt-1 min-h-4 text-xs text-ink" aria-live="polite">
      {said}
    </p>
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
}) {
  const onConfirmed = useNoticeAndRefresh();
  const { downloads } = props;
  return (
    <ConfirmDialog
      gameId={props.gameId}
      onConfirmed={onConfirmed}
      trigger={
        <Button variant="ghost" size="sm">
          Cancel…
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
        "emailed their statement, saying the payment came back and why. Someone other than the person who " +
        "recorded the payment does this."
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
