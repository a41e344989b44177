import { Card } from "@/app/_components/ui/card";
import type { AccountLimit, AddressLimit } from "@/lib/auth/sign-in";
import { SIGN_IN_LIMITS } from "@/lib/auth/sign-in";
import { type ClearAction, SignInLimitTables } from "./sign-in-limit-tables";

type Props = { accounts: AccountLimit[]; addresses: AddressLimit[]; action: ClearAction };

/** Accounts slowed by failed sign-ins and client addresses with failures, each with a way to clear them. */
export function SignInLimits({ accounts, addresses, action }: Props) {
  const { freeFailures, firstDelaySeconds, maxDelaySeconds, perAddress, addressWindowMinutes, accountMemoryHours } =
    SIGN_IN_LIMITS;
  return (
    <Card
      className="mb-8"
      title="Sign-in limits"
      description={
        `After ${freeFailures} failed sign-ins an account waits ${firstDelaySeconds} seconds before its ` +
        `next try, doubling with each further failure up to ${maxDelaySeconds / 60} minutes; it is never locked. ` +
        `Behind a trusted proxy, one address may fail ${perAddress} times in ${addressWindowMinutes} minutes. ` +
        `Clearing forgets the failures (audited).`
      }
      flush
    >
      <SignInLimitTables
        accounts={accounts}
        addresses={addresses}
        action={action}
        emptyText={`No failed sign-ins in the last ${accountMemoryHours} hours.`}
      />
    </Card>
  );
}
