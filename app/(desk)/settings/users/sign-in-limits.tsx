import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import type { AccountLimit, AddressLimit } from "@/lib/auth/sign-in";
import { SIGN_IN_LIMITS } from "@/lib/auth/sign-in";
import { ClearSignInLimitForm, type ClearAction } from "./sign-in-limit-form";

type Props = { accounts: AccountLimit[]; addresses: AddressLimit[]; action: ClearAction };

const CELL = "px-3 py-2";
const HEAD = "px-3 py-2 font-medium";

/** Accounts slowed by failed sign-ins and client addresses near or at their limit, each with a way to clear it. */
export function SignInLimits({ accounts, addresses, action }: Props) {
  return (
    <Card
      className="mb-8"
      title="Sign-in limits"
      description={`After ${SIGN_IN_LIMITS.freeFailures} failed sign-ins an account waits ${SIGN_IN_LIMITS.firstDelaySeconds} seconds before the next try, doubling with each further failure up to ${SIGN_IN_LIMITS.maxDelaySeconds / 60} minutes; it is never locked. Behind a trusted proxy, one address gets ${SIGN_IN_LIMITS.perAddress} failures in ${SIGN_IN_LIMITS.addressWindowMinutes} minutes.`}
      flush
    >
      {accounts.length === 0 && addresses.length === 0 ? (
        <p className="px-4 py-3 text-ink-muted">No failed sign-ins in the last {SIGN_IN_LIMITS.accountMemoryHours} hours.</p>
      ) : null}
      {accounts.length > 0 ? (
        <div className="overflow-x-auto">
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
                  <td className={CELL}>
                    <ClearSignInLimitForm action={action} kind="account" value={a.email} label={`Clear failures of ${a.email}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {addresses.length > 0 ? (
        <div className="overflow-x-auto border-t border-line">
          <table className="min-w-full text-sm">
            <caption className="sr-only">Client addresses with failed sign-ins in the last {SIGN_IN_LIMITS.addressWindowMinutes} minutes</caption>
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
                  <td className={CELL}>
                    <ClearSignInLimitForm action={action} kind="address" value={a.address} label={`Clear failures from ${a.address}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}
