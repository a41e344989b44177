import "server-only";
import type { DbOrTrx } from "@/db";
import { listNegativeBalancesElsewhere } from "@/db/queries/payout-balances";
import { formatUsdText } from "@/lib/format";
import { formatUsd } from "@/lib/money";
import { profileFlagsOf, type ProfileRules } from "@/lib/profiles/flags";
import { FLAG_INFO, type PayoutFlag } from "./flag-info";
import { windowLabel } from "./window-key";

/** A flag evaluated now for one recipient of a batch (the shape of ActiveFlag, lib/payouts/flags.ts). */
export type RecipientFlagNow = {
  flag: PayoutFlag;
  label: string;
  detail: string;
  recipientPlayerId: number;
  cause: string;
  raisedAt: Date | null;
};

type Params = {
  gameId: string;
  batchId: string;
  recipientPlayerId?: number;
  recipientPlayerIds?: readonly number[];
  /** The profile rules when the caller read them already (readProfileRules). */
  rules?: ProfileRules;
};

/**
 * `negative_balance_elsewhere` on each statement of the batch still to be approved, released or paid with something
 * payable, for each negative balance of its recipient that another batch not approved yet holds, or carried out and no
 * statement took in. The cause names that statement and the amount: a different amount (the draft prepared again) is a
 * new flag.
 */
async function balanceFlagsOf(db: DbOrTrx, params: Params): Promise<RecipientFlagNow[]> {
  const balances = await listNegativeBalancesElsewhere(db, params);
  return balances.map((b) => {
    const window = windowLabel({ startMs: b.windowStart.getTime(), endMs: b.windowEnd.getTime() });
    const amount = formatUsdText(formatUsd(b.amountUsd));
    const detail =
      b.kind === "draft"
        ? `${amount} in the ${window} statement, whose batch is not approved yet: approving it carries the balance ` +
          "to a later statement, not to this one"
        : `${amount} carried forward from the ${window} statement after this one was prepared, taken in by none yet`;
    return {
      flag: "negative_balance_elsewhere" as const,
      label: FLAG_INFO.negative_balance_elsewhere.label,
      detail,
      recipientPlayerId: b.recipientPlayerId,
      cause: `negative_balance:${b.statementId}:${b.amountUsd}`,
      raisedAt: b.since,
    };
  });
}

/**
 * The flags of a batch's recipients evaluated now rather than stored at preparation: their payout profiles' and their
 * negative balances elsewhere. Read for a page of recipients, one recipient, or the whole batch.
 */
export async function recipientFlagsNow(db: DbOrTrx, params: Params): Promise<RecipientFlagNow[]> {
  const [profiles, balances] = await Promise.all([profileFlagsOf(db, params), balanceFlagsOf(db, params)]);
  return [...profiles, ...balances];
}
