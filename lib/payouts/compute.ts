import { formatUsd, money, netInCents, roundCents } from "@/lib/money";
import { formatUsdText } from "@/lib/format";

/**
 * A statement's figures, from the window's net attributed and the balance carried in from earlier statements.
 *
 * - available = net attributed + carried in;
 * - a negative available is carried forward against later payouts ("a negative net ... is carried forward");
 * - a positive available under the minimum payout rolls to the next statement ("a payable below a minimum threshold
 *   rolls to the next month");
 * - otherwise all of it is payable.
 *
 * payable + carried out = available, always, to the cent.
 */
export type StatementFigures = {
  netAttributedUsd: string;
  carriedInUsd: string;
  availableUsd: string;
  payableUsd: string;
  carryOutUsd: string;
};

export function computeStatementFigures(input: {
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  carriedInUsd: string;
  minPayoutUsd: string;
}): StatementFigures {
  // Gross and reversed in cents, then their difference: every later figure (available, payable, carried) is whole
  // cents.
  const net = netInCents(input.grossAttributedUsd, input.reversedAttributedUsd);
  const carriedIn = roundCents(money(input.carriedInUsd));
  const available = net.plus(carriedIn);
  const minimum = money(input.minPayoutUsd);
  const payable = available.gt(0) && available.gte(minimum) ? available : money("0");
  return {
    netAttributedUsd: formatUsd(net),
    carriedInUsd: formatUsd(carriedIn),
    availableUsd: formatUsd(available),
    payableUsd: formatUsd(payable),
    carryOutUsd: formatUsd(available.minus(payable)),
  };
}

/** Why a statement pays nothing, in words for the table and the statement. */
export function carryReason(
  figures: Pick<StatementFigures, "availableUsd" | "payableUsd">,
  minPayoutUsd: string,
): string | null {
  const available = money(figures.availableUsd);
  if (!money(figures.payableUsd).isZero()) return null;
  if (available.isNegative()) return "Negative balance: carried forward against later payouts";
  if (available.isZero()) return "Nothing to pay";
  return `Under the minimum payout of ${formatUsdText(formatUsd(minPayoutUsd))}: rolls to the next statement`;
}

export const CARRIED_WHOLE_REASON = "Held, then carried forward whole: paid with the recipient's next statement";

/**
 * A carried statement whose balance reached the minimum payout: it was held, then carried forward whole (a balance
 * under the minimum rolls over by itself). Its carry out is not a roll-over under the minimum.
 */
export function carriedWhole(s: { state: string; availableUsd: string; minPayoutUsd: string }): boolean {
  const available = money(s.availableUsd);
  // gt(0), not isPositive(): decimal.js counts zero as positive, and a window netting nothing with a minimum of 0.00
  // was never held.
  return s.state === "carried" && available.gt(0) && available.gte(s.minPayoutUsd);
}

/** Why a statement in its state pays nothing: carryReason, or that it was carried forward whole after a hold. */
export function statementCarryReason(
  s: Pick<StatementFigures, "availableUsd" | "payableUsd"> & { state: string; minPayoutUsd: string },
): string | null {
  return carriedWhole(s) ? CARRIED_WHOLE_REASON : carryReason(s, s.minPayoutUsd);
}
