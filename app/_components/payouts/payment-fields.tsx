"use client";

import { useState } from "react";
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
  // The day it is where the person is (the day they mean by "today"), not the server's UTC day: after 16:00 in
  // California that is already tomorrow. The fields are drawn in the browser only (in a dialog). The server takes up
  // to the day after its own, so a day ahead of UTC is offered too.
  const [day] = useState(() => (typeof window === "undefined" ? today : localDay(new Date())));
  const latest = day > today ? day : today;
  return (
    <>
      <Field label="Paid on" hint="The day the money left." error={errors.paidOn} required>
        {(control) => <Input {...control} name="paidOn" type="date" defaultValue={day} max={latest} />}
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

/** The calendar day of an instant on this browser's clock, YYYY-MM-DD. */
export function localDay(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}
