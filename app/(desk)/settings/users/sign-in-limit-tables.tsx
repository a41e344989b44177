"use client";

import { useActionState } from "react";
import { FormMessage } from "@/app/_components/forms/form-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import type { ActionResult } from "@/lib/actions";
import type { AccountLimit, AddressLimit } from "@/lib/auth/sign-in";

export type ClearAction = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

type Props = { accounts: AccountLimit[]; addresses: AddressLimit[]; action: ClearAction; emptyText: string };

/** The two tables share one result message, shown above them: the cleared row itself leaves the page. */
export function SignInLimitTables({ accounts, addresses, action, emptyText }: Props) {
  const [state, formAction] = useActionState(action, null);
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
        <div className="px-4 pt-3">
          <FormMessage tone={state.ok ? "success" : "error"}>{state.message}</FormMessage>
        </div>
      ) : null}
      {accounts.length === 0 && addresses.length === 0 ? <p className="px-4 py-3 text-ink-muted">{emptyText}</p> : null}
      {accounts.length > 0 ? (
        <SimpleTable
          caption="Accounts with failed sign-ins since their last successful one"
          frame="none"
          head={
            <>
              <Th>Account</Th>
              <Th align="right">Failures</Th>
              <Th>Latest failure</Th>
              <Th>State</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }
        >
          {accounts.map((a) => (
            <Tr key={a.email}>
              <Td className="font-medium text-ink">{a.email}</Td>
              <Td align="right" className="tabular-nums">
                {a.failures}
              </Td>
              <Td>
                <DateTime value={a.lastFailureAt} seconds focusable={false} />
              </Td>
              <Td>
                {a.delayedUntil ? (
                  <Badge tone="warning">
                    Waits until <DateTime value={a.delayedUntil} seconds focusable={false} />
                  </Badge>
                ) : (
                  <Badge>Can sign in</Badge>
                )}
              </Td>
              <Td>{clear("account", a.email, `Clear failures of ${a.email}`)}</Td>
            </Tr>
          ))}
        </SimpleTable>
      ) : null}
      {addresses.length > 0 ? (
        <SimpleTable
          caption="Client addresses with failed sign-ins in their window"
          frame="none"
          className="border-t border-line"
          head={
            <>
              <Th>Address</Th>
              <Th align="right">Failures</Th>
              <Th>Latest failure</Th>
              <Th>State</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </>
          }
        >
          {addresses.map((a) => (
            <Tr key={a.address}>
              <Td className="font-mono text-ink">{a.address}</Td>
              <Td align="right" className="tabular-nums">
                {a.failures}
              </Td>
              <Td>
                <DateTime value={a.lastFailureAt} seconds focusable={false} />
              </Td>
              <Td>
                {a.limitedUntil ? (
                  <Badge tone="danger">
                    Refused until <DateTime value={a.limitedUntil} seconds focusable={false} />
                  </Badge>
                ) : (
                  <Badge>Under the limit</Badge>
                )}
              </Td>
              <Td>{clear("address", a.address, `Clear failures from ${a.address}`)}</Td>
            </Tr>
          ))}
        </SimpleTable>
      ) : null}
    </>
  );
}
