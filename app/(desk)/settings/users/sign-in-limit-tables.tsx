"use client";

import { useActionState } from "react";
import { FormMessage } from "@/app/_components/forms/form-message";
import { SubmitButton } from "@/app/_components/forms/submit-button";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import type { ActionResult } from "@/lib/actions";
import type { AccountLimit, AddressLimit } from "@/lib/auth/sign-in";

export type ClearAction = (state: ActionResult | null, form: FormData) => Promise<ActionResult>;

type Props = { accounts: AccountLimit[]; addresses: AddressLimit[]; action: ClearAction; emptyText: string };

const CELL = "px-3 py-2";
const HEAD = "px-3 py-2 font-medium";

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
        <div className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-accent" tabIndex={0} role="region" aria-label="Accounts with failed sign-ins since their last successful one">
          <table className="min-w-full text-sm">
            <caption className="sr-only">Accounts with failed sign-ins since their last successful one</caption>
            <thead className="bg-subtle text-left text-ink-muted">
              <tr>
                <th scope="col" className={HEAD}>Account</th>
                <th scope="col" className={`${HEAD} text-right`}>Failures</th>
                <th scope="col" className={HEAD}>Latest failure</th>
                <th scope="col" className={HEAD}>State</th>
                <th scope="col" className={HEAD}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.email} className="border-t border-line">
                  <td className={`${CELL} font-medium text-ink`}>{a.email}</td>
                  <td className={`${CELL} text-right tabular-nums`}>{a.failures}</td>
                  <td className={CELL}><DateTime value={a.lastFailureAt} seconds focusable={false} /></td>
                  <td className={CELL}>
                    {a.delayedUntil ? (
                      <Badge tone="warning">Waits until <DateTime value={a.delayedUntil} seconds focusable={false} /></Badge>
                    ) : (
                      <Badge>Can sign in</Badge>
                    )}
                  </td>
                  <td className={CELL}>{clear("account", a.email, `Clear failures of ${a.email}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {addresses.length > 0 ? (
        <div className="overflow-x-auto border-t border-line">
          <table className="min-w-full text-sm">
            <caption className="sr-only">Client addresses with failed sign-ins in their window</caption>
            <thead className="bg-subtle text-left text-ink-muted">
              <tr>
                <th scope="col" className={HEAD}>Address</th>
                <th scope="col" className={`${HEAD} text-right`}>Failures</th>
                <th scope="col" className={HEAD}>Latest failure</th>
                <th scope="col" className={HEAD}>State</th>
                <th scope="col" className={HEAD}><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {addresses.map((a) => (
                <tr key={a.address} className="border-t border-line">
                  <td className={`${CELL} font-mono text-ink`}>{a.address}</td>
                  <td className={`${CELL} text-right tabular-nums`}>{a.failures}</td>
                  <td className={CELL}><DateTime value={a.lastFailureAt} seconds focusable={false} /></td>
                  <td className={CELL}>
                    {a.limitedUntil ? (
                      <Badge tone="danger">Refused until <DateTime value={a.limitedUntil} seconds focusable={false} /></Badge>
                    ) : (
                      <Badge>Under the limit</Badge>
                    )}
                  </td>
                  <td className={CELL}>{clear("address", a.address, `Clear failures from ${a.address}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
