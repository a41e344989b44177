"use client";

import { Field } from "@/app/_components/forms/field";
import { Input } from "@/app/_components/forms/input";
import { Select } from "@/app/_components/forms/select";

/** Date, method and external reference of a payment; the amount is each statement's payable, never typed. */
export function PaymentFields({
  methods,
  today,
  errors = {},
}: {
  methods: { value: string; label: string }[];
  today: string;
  /** The action's refusal of each field, tied to its control. */
  errors?: Record<string, string>;
}) {
  return (
    <>
      <Field label="Paid on" hint="The date the money left, UTC." error={errors.paidOn} required>
        {(control) => <Input {...control} name="paidOn" type="date" defaultValue={today} max={today} />}
      </Field>
      <Field label="Method" error={errors.method} required>
        {(control) => <Select {...control} name="method" options={methods} defaultValue="bank_transfer" />}
      </Field>
      <Field
        label="External reference"
        hint="The bank or provider reference of the payment run."
        error={errors.reference}
        required
      >
        {(control) => <Input {...control} name="reference" maxLength={200} autoComplete="off" />}
      </Field>
    </>
  );
}
