import { formatUsd, type Money, money, roundCents, sumMoney } from "@/core/money";
import { computeStatementFigures, type StatementFigures } from "./compute";

/**
 * What preparing a batch computes per recipient, with no database: each recipient of the snapshot gets a statement
 * that takes in every balance carried out to them and not taken yet; a recipient with no activity in the window gets
 * one only when what they carry reaches the minimum payout (and is positive). Figures follow computeStatementFigures
 * (net, minimum payout roll-over, payable, carry out).
 */

/** What a statement states about its recipient, copied from the snapshot (or the latest carry). */
type RecipientFacts = {
  resolved: boolean;
  email: string | null;
  name: string | null;
  renewals: number;
  subscriptions: number;
  reversals: number;
  grossUsd: string;
  /** What the statement deducts of the reversals reported (those less `reversedBeforeUsd`). */
  reversedUsd: string;
  /** Reported in the snapshot and deducted already by another window's approved batch. */
  reversedBeforeUsd: string;
};

export type SnapshotRecipientInput = Omit<RecipientFacts, "reversedBeforeUsd"> & {
  recipient: string;
  /** As the snapshot reports them: every reversal of the window, `reversedBeforeUsd` included. */
  reversedUsd: string;
  /** Of those, what approved batches of other windows deducted already (a reversal reported again). */
  reversedBeforeUsd?: string;
  /** Some of the recipient's lines could not be attributed. */
  hasUnavailable: boolean;
  /** A reversal of theirs known only from its period row was deducted in another window's batch too. */
  reversalReportedAgain?: boolean;
};

/** A balance carried out of a closed statement and not yet taken by another. */
export type CarryInput = {
  fromStatementId: string;
  recipient: string;
  amountUsd: string;
  resolved: boolean;
  email: string | null;
  name: string | null;
  /** The flags open on its statement when it was held and carried forward whole: they go with the balance. */
  openFlags?: readonly string[];
};

/** The flag of a statement taking in a balance carried forward from a hold with open flags (see flag-info.ts). */
export const CARRIED_OPEN_FLAGS = "carried_with_open_flags";

export type BuiltStatement = StatementFigures &
  RecipientFacts & { id: string; recipient: string; inSnapshot: boolean; flags: string[] };

export type BuiltCarry = { fromStatementId: string; toStatementId: string; amountUsd: string };

export type BuiltStatements = { statements: BuiltStatement[]; carries: BuiltCarry[]; payableUsd: string };

/**
 * Of the reversals reported, the part deducted already (deducting it here would charge the recipient for it twice),
 * in cents as a statement takes its reversals: never less than nothing, nor more than reported here. The statement
 * deducts the reported reversals in cents less this, so that with it they add up to the snapshot's in cents.
 */
function deductedBefore(reportedUsd: string, beforeUsd: string): Money {
  const reported = roundCents(money(reportedUsd));
  const before = roundCents(money(beforeUsd));
  if (!before.gt(0) || !reported.gt(0)) return money("0");
  return before.gt(reported) ? reported : before;
}

export function buildStatements(input: {
  recipients: readonly SnapshotRecipientInput[];
  carries: readonly CarryInput[];
  minPayoutUsd: string;
  newId: () => string;
}): BuiltStatements {
  const carriesByRecipient = new Map<string, CarryInput[]>();
  for (const c of input.carries)
    carriesByRecipient.set(c.recipient, [...(carriesByRecipient.get(c.recipient) ?? []), c]);
  const statements: BuiltStatement[] = [];
  const carries: BuiltCarry[] = [];
  const seen = new Set<string>();

  const add = (r: Omit<BuiltStatement, keyof StatementFigures | "id">) => {
    const from = carriesByRecipient.get(r.recipient) ?? [];
    const figures = computeStatementFigures({
      grossAttributedUsd: r.grossUsd,
      reversedAttributedUsd: r.reversedUsd,
      carriedInUsd: formatUsd(sumMoney(from.map((c) => c.amountUsd))),
      minPayoutUsd: input.minPayoutUsd,
    });
    const id = input.newId();
    // A balance carried forward from a hold whose flags were open still answers to them: checked before it is paid.
    const flags = from.some((c) => (c.openFlags?.length ?? 0) > 0) ? [...r.flags, CARRIED_OPEN_FLAGS] : r.flags;
    statements.push({
      ...r,
      ...figures,
      flags,
      id,
      grossUsd: formatUsd(r.grossUsd),
      reversedUsd: formatUsd(r.reversedUsd),
      reversedBeforeUsd: formatUsd(r.reversedBeforeUsd),
    });
    for (const c of from)
      carries.push({ fromStatementId: c.fromStatementId, toStatementId: id, amountUsd: c.amountUsd });
    seen.add(r.recipient);
  };

  for (const r of input.recipients) {
    const flags: string[] = [];
    if (!r.resolved) flags.push("unresolved_recipient");
    if (r.hasUnavailable) flags.push("attribution_unavailable");
    if (r.reversalReportedAgain) flags.push("reversal_reported_again");
    const { hasUnavailable: _, reversalReportedAgain: __, ...rest } = r;
    const before = deductedBefore(r.reversedUsd, r.reversedBeforeUsd ?? "0");
    const reversedUsd = before.isZero() ? r.reversedUsd : formatUsd(roundCents(money(r.reversedUsd)).minus(before));
    add({ ...rest, reversedUsd, reversedBeforeUsd: formatUsd(before), inSnapshot: true, flags });
  }
  for (const [recipient, from] of carriesByRecipient) {
    if (seen.has(recipient)) continue;
    const carried = sumMoney(from.map((c) => c.amountUsd));
    if (!carried.gt(0) || carried.lt(money(input.minPayoutUsd))) continue;
    // Carries come oldest window first (listUntakenCarries): the last is what was known of the recipient last.
    const latest = from[from.length - 1];
    add({
      recipient,
      inSnapshot: false,
      resolved: latest?.resolved ?? false,
      email: latest?.email ?? null,
      name: latest?.name ?? null,
      renewals: 0,
      subscriptions: 0,
      reversals: 0,
      grossUsd: "0.00",
      reversedUsd: "0.00",
      reversedBeforeUsd: "0.00",
      flags: latest?.resolved === false ? ["unresolved_recipient"] : [],
    });
  }
  return { statements, carries, payableUsd: formatUsd(sumMoney(statements.map((s) => s.payableUsd))) };
}

/**
 * Why a batch is not approved when part of a reversal reported again was deducted, since it was prepared, by
 * another window's batch approved meanwhile: its frozen figures deduct that part too (the part deducted before,
 * recorded at preparation, is no longer what approved batches of other windows deducted). Prepared again, it deducts
 * the rest.
 * Null when every statement's part still holds.
 */
export function staleDeductionRefusal(
  deductions: readonly { recipient: string; storedUsd: string; reportedUsd: string; beforeNowUsd: string }[],
): string | null {
  const stale = deductions.filter((d) => !deductedBefore(d.reportedUsd, d.beforeNowUsd).equals(d.storedUsd));
  if (stale.length === 0) return null;
  const recipients = stale.map((d) => d.recipient).join(", ");
  return (
    "Another window's batch, approved since this one was prepared, deducted part of a reversal this batch deducts " +
    `too (recipient ${recipients}): approving would deduct it twice. Discard this batch and prepare the window again.`
  );
}
