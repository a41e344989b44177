"use client";

import { useActionState } from "react";
import { FormMessage } from "@/app/_components/forms/form-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Badge } from "@/app/_components/ui/badge";
import { FocusHere } from "@/app/_components/ui/focus-here";
import { DateTime } from "@/app/_components/ui/date-time";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import type { ActionResult } from "@/lib/actions";
import type { AccountLimit, AddressLimit } from "@/lib/auth/sign-in";
import { keepTyped } from "@/app/_components/forms/keep-typed";

export type ClearAction = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

type Props = { accounts: AccountLimit[]; addresses: AddressLimit[]; action: ClearAction; emptyText: string };

/** The two tables share one result message, shown above them: the cleared row itself leaves the page. */
export function SignInLimitTables({ accounts, addresses, action, emptyText }: Props) {
  const [state, formAction] = useActionState(keepTyped(action), null);
  const clear = (kind: "account" | "address", value: string, label: string) => (
    <form action={formAction} className="flex justify-end">
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="value" value={value} />
      <SubmitButton variant="secondary" size="sm" aria-label={label}>
        Clear
      </SubmitButton>
    </form>
  );
  return (
    <>
      {state ? (
        // Focus goes to the result: the row whose Clear was pressed has left the page with the button.
        <FocusHere key={state.message} className="px-4 pt-3">
          <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
        </FocusHere>
      ) : null}
      {accounts.length === 0 && addresses.length === 0 ? <p className="px-4 py-3 text-ink-muted">{emptyText}</p> : null}
      {accounts.length > 0 ? (
        <FailureTable
          caption="Accounts with failed sign-ins since their last successful one"
          heading="Account"
          rows={accounts.map((a) => ({
            key: a.email,
            name: <span className="font-medium text-ink">{a.email}</span>,
            failures: a.failures,
            lastFailureAt: a.lastFailureAt,
            state: a.delayedUntil ? (
              <Badge tone="warning">
                Waits until <DateTime value={a.delayedUntil} seconds focusable={false} />
              </Badge>
            ) : (
              <Badge>Can sign in</Badge>
            ),
            clear: clear("account", a.email, `Clear failures of ${a.email}`),
          }))}
        />
      ) : null}
      {addresses.length > 0 ? (
        <FailureTable
          caption="Client addresses with failed sign-ins in their window"
          heading="Address"
          className="border-t border-line"
          rows={addresses.map((a) => ({
            key: a.address,
            name: <span className="font-mono text-ink">{a.address}</span>,
            failures: a.failures,
            lastFailureAt: a.lastFailureAt,
            state: a.limitedUntil ? (
              <Badge tone="danger">
                Refused until <DateTime value={a.limitedUntil} seconds focusable={false} />
              </Badge>
            ) : (
              <Badge>Under the limit</Badge>
            ),
            clear: clear("address", a.address, `Clear failures from ${a.address}`),
          }))}
        />
      ) : null}
    </>
  );
}

type FailureRow = {
  key: string;
  name: React.ReactNode;
  failures: number;
  lastFailureAt: string;
  state: React.ReactNode;
  clear: React.ReactNode;
};

/** One table of sign-in failures: who (an account or an address), how many, the latest, its state, and Clear. */
function FailureTable(props: { caption: string; heading: string; rows: FailureRow[]; className?: string }) {
  return (
    <SimpleTable
      caption={props.caption}
      frame="none"
      className={props.className}
      head={
        <>
          <Th>{props.heading}</Th>
          <Th align="right">Failures</Th>
          <Th>Latest failure</Th>
          <Th>State</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </>
      }
    >
      {props.rows.map((row) => (
        <Tr key={row.key}>
          <Td>{row.name}</Td>
          <Td align="right" className="tabular-nums">
            {row.failures}
          </Td>
          <Td>
            <DateTime value={row.lastFailureAt} seconds focusable={false} />
          </Td>
          <Td>{row.state}</Td>
          <Td>{row.clear}</Td>
        </Tr>
      ))}
    </SimpleTable>
  );
}
