"use client";

import { Field } from "@/app/_components/forms/field";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";
import { Money } from "@/core/money";
import { countOf } from "@/lib/format";
import { convertUsd, fxRateSchema } from "@/lib/payments/fx";
import { FILE_METHOD_LABELS, FILE_METHODS, sepaExecutionDate } from "@/lib/payments/schemas";

/** The fields of a payment file to make, and the question asked before it is written. */

export type FileValues = { method: string; eurRate: string; rateSource: string; executionDate: string };

/** The question asked before the file is written: what it pays, at which rate (both ways), on which day. */
export function confirmText(values: FileValues, payable: number, today: string): string {
  const method = FILE_METHOD_LABELS[values.method as keyof typeof FILE_METHOD_LABELS] ?? values.method;
  const rate = fxRateSchema.safeParse(values.eurRate);
  const atRate = rate.success
    ? ` EUR payouts at ${values.eurRate.trim()} EUR for one USD (1 EUR = ` +
      `${new Money(1).div(new Money(rate.data)).toDecimalPlaces(4).toFixed(4)} USD).`
    : "";
  const day =
    values.method === "sepa"
      ? ` The bank pays on ${sepaExecutionDate(values.executionDate.trim() || today, today)}.`
      : "";
  return (
    `Write a ${method} file now? It takes those of the ${countOf(payable, "payable statement")} it can pay, which ` +
    `stay “in payment” until its results are imported or it is cancelled.${atRate}${day}`
  );
}

export function FileFields(props: {
  values: FileValues;
  set: (key: keyof FileValues) => (event: { target: { value: string } }) => void;
  errors: Record<string, string | undefined>;
  sepa: { offered: boolean; note: string };
  /** The kinds of file that can pay someone of the batch now; the others are shown, not offered. */
  payingMethods: readonly string[];
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
                : props.payingMethods.includes(m)
                  ? { value: m, label: FILE_METHOD_LABELS[m] }
                  : { value: m, label: `${FILE_METHOD_LABELS[m]} (no recipient paid this way)`, disabled: true },
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
