import type { PeriodReport } from "@/lib/service/schemas";
import { formatUsd, Money, money, proRata, sumMoney, usdToCoins } from "@/lib/money";
import { monthKeyOf, monthWindow, windowToQuery } from "@/lib/time";
import { formatUsdText } from "@/lib/format";

/**
 * What a refund will do, shown before it is confirmed and stored with the attempt. Built from the period report only
 * (pure). Figures the service computes itself (attribution lost, partner revenue reversed) are estimates made with the
 * service's stated rules; the receipt carries the exact figures afterwards.
 */
export type RefundImpact = {
  subscriptionId: string;
  periodId: number;
  periodSeq: number;
  periodStatus: string;
  periodAmountUsd: string;
  refundedToDateUsd: string;
  remainingUsd: string;
  amountUsd: string;
  isFull: boolean;
  refundable: boolean;
  /** Why the period cannot be refunded, when it cannot. */
  blocker: "never_collected" | "pcstore" | "card_record_missing" | "fully_refunded" | "chargeback" | null;
  rail: "card" | "pcstore";
  fundingShape: "card" | "wallet" | "mixed";
  cardChargedUsd: string;
  balanceAppliedCoins: string;
  /** Back to the card: the whole card charge, only on the refund that completes the period. */
  cardRefundUsd: string;
  /** Signed change of the player's wallet, in coins. */
  balanceDeltaCoins: string;
  /** The completing refund takes back coins handed out earlier; the wallet can go below zero if they were spent. */
  walletMayGoNegative: boolean;
  partnerRevenueReversedUsd: string;
  cardFeeChargedToPartnerUsd: string;
  revenueShare: {
    recipientPlayerId: number;
    percentAtRenewal: string;
    originalAttributedUsd: string;
    reversedBeforeUsd: string;
    attributionLostUsd: string;
    netAfterUsd: string;
  } | null;
  /** "a reversal belongs to the window holding its refunded_at": the month of the refund, if made now. */
  reportingWindow: { month: string; start: string; end: string };
  /** Whether the recipient was already paid for the period (then the reversal is carried against the next payout). */
  recipientAlreadyPaid: boolean;
  /** Sentences for the confirm step. */
  effects: string[];
};

const ZERO = new Money(0);

function usdText(value: Money | string): string {
  return `${formatUsdText(formatUsd(value))}`;
}

/** " (USD 9.99)" for an amount known, else nothing. */
function amountNote(value: string | null): string {
  return value === null ? "" : ` (${usdText(value)})`;
}

function coinsText(value: Money): string {
  return `${formatUsd(value.abs())} coins`;
}

/**
 * A period charged to a card whose charge record the service cannot find (no mint order): the service refuses every
 * refund of it, partial or full ("409 MINT_ORDER_MISSING: card charge record cannot be found"), before anything moves.
 */
export function cardRecordMissing(period: {
  funding: { card_charged_usd?: string | null } | null;
  mint_order_id: string | null;
}): boolean {
  return money(period.funding?.card_charged_usd ?? "0").gt(0) && period.mint_order_id === null;
}

/**
 * A period charged through the pcstore: "Periods charged through the pcstore are not refundable". On the pcstore rail
 * only a pcstore charge of 0.00 says the wallet covered it; a charge not reported is taken as charged.
 */
export function pcstoreCharged(period: {
  funding: { rail?: string | null; pcstore_charged_usd?: string | null } | null;
}): boolean {
  const charged = period.funding?.pcstore_charged_usd;
  if (period.funding?.rail === "pcstore" && (charged === null || charged === undefined)) return true;
  return money(charged ?? "0").gt(0);
}

/**
 * A paid period with no card charge and nothing charged through the pcstore: the wallet covered it. A mint order
 * exists only where a card paid, so its absence alone does not say the wallet paid (a pcstore charge has none).
 */
export function walletCoveredPeriod(period: {
  paid_at: string | null;
  funding: { card_charged_usd?: string | null; pcstore_charged_usd?: string | null } | null;
  mint_order_id: string | null;
}): boolean {
  return (
    period.paid_at !== null && period.mint_order_id === null && !cardRecordMissing(period) && !pcstoreCharged(period)
  );
}

/** Why a period has no mint order, in words (null for a period never paid). */
export function noMintOrderNote(period: Parameters<typeof walletCoveredPeriod>[0]): string | null {
  if (cardRecordMissing(period)) return "missing: the service cannot find the card charge's record";
  if (period.paid_at === null) return null;
  return pcstoreCharged(period) ? "none (charged through the pcstore)" : "none (the wallet covered the period)";
}

/** What the remaining refundable amount's hint says of a period no refund can be made of, where it says anything. */
export const BLOCKER_HINTS: Partial<Record<NonNullable<RefundImpact["blocker"]>, string>> = {
  never_collected: "never collected: nothing to refund",
  pcstore: "pcstore: not refundable",
  card_record_missing: "card record missing: not refundable",
  chargeback: "disputed by the cardholder: not refundable",
};

/** A chargeback of the period's card charge the desk was told of (`purchase.disputed`) that stands or was lost. */
export type Chargeback = { status: "open" | "lost"; usdAmount: string | null };

/**
 * A period whose card charge the cardholder disputed is not refunded: money held for an open dispute goes back to the
 * cardholder if it is lost, and a lost one gave it back already; a refund on top would pay them twice. Known from the
 * report's held amount, or from the desk's own record of the dispute (a lost one shows in the report no more).
 */
function chargebackOf(report: PeriodReport, known: Chargeback | null): Chargeback | null {
  if (known) return known;
  const held = money(report.fee_legs.disputed_amount_held_usd);
  return held.gt(0) ? { status: "open", usdAmount: formatUsd(held) } : null;
}

export function computeRefundImpact(
  report: PeriodReport,
  input: { amountUsd: string | null; nowMs: number; recipientAlreadyPaid: boolean; chargeback?: Chargeback | null },
): RefundImpact {
  const period = report.period;
  const periodAmount = money(period.amount_usd);
  const refunded = money(report.refunds.refunded_to_date_usd);
  // A period never collected has nothing to refund: its price was never paid.
  const remaining = period.paid_at === null ? ZERO : Money.max(periodAmount.minus(refunded), ZERO);
  const amount = input.amountUsd === null ? remaining : money(input.amountUsd);
  const funding = period.funding;
  const rail = funding?.rail ?? "card";
  const cardCharged = money(funding?.card_charged_usd ?? "0");
  const balanceApplied = money(funding?.balance_applied_coins ?? "0");

  const chargeback = chargebackOf(report, input.chargeback ?? null);
  // "Periods charged through the pcstore are not refundable"; a pcstore subscription's wallet-covered period is.
  const blocker =
    period.paid_at === null
      ? ("never_collected" as const)
      : pcstoreCharged(period)
        ? ("pcstore" as const)
        : cardRecordMissing(period)
          ? ("card_record_missing" as const)
          : remaining.lte(0)
            ? ("fully_refunded" as const)
            : chargeback
              ? ("chargeback" as const)
              : null;
  const fundingShape = cardCharged.gt(0) ? (balanceApplied.gt(0) ? "mixed" : "card") : "wallet";
  const isFull = amount.equals(remaining) && remaining.gt(0);

  // "Partial: Nothing returns to the card. Refunded amount credited to the wallet in coins at a 10:1 peg."
  // "Full: Whole card charge for that period goes back to the card. Wallet re-credited with the coins taken from the
  // member's pre-existing balance; coins minted by the card charge are taken back"; partials compose.
  const priorPartialCoins = sumMoney(
    report.refunds.events.filter((e) => !e.is_full_refund).map((e) => usdToCoins(e.refunded_amount_usd)),
  );
  const cardRefund = isFull ? cardCharged : ZERO;
  const balanceDelta = isFull ? balanceApplied.minus(priorPartialCoins) : usdToCoins(amount);
  const walletMayGoNegative = isFull && priorPartialCoins.gt(0);

  // Decision 4 of the service's rules: pro rata on partials, exactly what is left on the completing refund.
  const settled = money(report.fee_legs.partner_revenue_settled_usd);
  const partnerLeft = Money.max(settled.minus(money(report.fee_legs.partner_revenue_reversed_usd)), ZERO);
  const partnerReversed = isFull ? partnerLeft : Money.min(proRata(settled, amount, periodAmount), partnerLeft);
  const cardFee = amount.minus(partnerReversed);

  const attribution = period.attribution;
  let revenueShare: RefundImpact["revenueShare"] = null;
  if (attribution) {
    const original = money(attribution.attributed_amount_usd);
    const before = sumMoney(report.refunds.events.map((e) => e.reversed_attributed_usd));
    const left = Money.max(original.minus(before), ZERO);
    const lost = isFull ? left : Money.min(proRata(original, amount, periodAmount), left);
    revenueShare = {
      recipientPlayerId: attribution.recipient_player_id,
      percentAtRenewal: attribution.percent_at_renewal,
      originalAttributedUsd: formatUsd(original),
      reversedBeforeUsd: formatUsd(before),
      attributionLostUsd: formatUsd(lost),
      netAfterUsd: formatUsd(original.minus(before).minus(lost)),
    };
  }

  const month = monthKeyOf(input.nowMs);
  const window = monthWindow(month);
  const reportingWindow = { month, ...windowToQuery(window) };

  const effects: string[] = [];
  if (blocker === "pcstore") effects.push("This period was charged through the pcstore and cannot be refunded here.");
  else if (blocker === "never_collected") effects.push("This period was never collected; there is nothing to refund.");
  else if (blocker === "card_record_missing")
    effects.push(
      "The service cannot find the record of this period's card charge (it has no mint order), and refuses any " +
        "refund of it until the record is restored: ask the service's support.",
    );
  else if (blocker === "fully_refunded") effects.push("This period is already fully refunded.");
  else if (chargeback?.status === "open")
    effects.push(
      `The cardholder disputed this period's card charge${amountNote(chargeback.usdAmount)}: if the dispute is lost` +
        " the money goes back to them, so a refund now could pay them twice. It is not " +
        "refunded while the dispute is open; once it is won, the period can be refunded.",
    );
  else if (chargeback?.status === "lost")
    effects.push(
      `The cardholder won a dispute of this period's card charge${amountNote(chargeback.usdAmount)}: the money went ` +
        "back to them through the chargeback, so the period is not refunded on top of it.",
    );
  else if (isFull) {
    effects.push(
      cardRefund.gt(0)
        ? `${usdText(cardRefund)} goes back to the card (the whole card charge of the period).`
        : "Nothing goes back to a card: the wallet covered this period, so it is refunded in coins.",
    );
    if (balanceApplied.gt(0))
      effects.push(`${coinsText(balanceApplied)} taken from the wallet for this period are credited back.`);
    if (priorPartialCoins.gt(0)) {
      effects.push(
        `${coinsText(priorPartialCoins)} credited by earlier partial refunds are taken back; the wallet may go below ` +
          `zero if they were spent.`,
      );
    }
    effects.push(`Wallet change: ${balanceDelta.isNegative() ? "−" : "+"}${coinsText(balanceDelta)}.`);
    // "Paid period + full refund: the period no longer counts toward paid_through; the subscription is not
    // cancelled"; one set to end at its period's end is retired at paid_through, which moves back.
    effects.push(
      "The period becomes refunded and no longer counts toward the subscription's paid-through date: the player " +
        "loses the access it paid for. The subscription is not canceled, but one already set to end at its " +
        "period's end then ends sooner (at once, when this was the last period paid).",
    );
  } else {
    effects.push(
      `Partial refund: nothing returns to the card; ${usdText(amount)} is credited to the wallet as ` +
        `${coinsText(balanceDelta)} (10 coins per USD).`,
    );
    effects.push(`The period stays billed; ${usdText(remaining.minus(amount))} will remain refundable.`);
  }

  return {
    subscriptionId: report.period.subscription_id,
    periodId: period.period_id,
    periodSeq: period.period_seq,
    periodStatus: period.status,
    periodAmountUsd: formatUsd(periodAmount),
    refundedToDateUsd: formatUsd(refunded),
    remainingUsd: formatUsd(remaining),
    amountUsd: formatUsd(amount),
    isFull,
    refundable: blocker === null,
    blocker,
    rail,
    fundingShape,
    cardChargedUsd: formatUsd(cardCharged),
    balanceAppliedCoins: formatUsd(balanceApplied),
    cardRefundUsd: formatUsd(cardRefund),
    balanceDeltaCoins: formatUsd(balanceDelta),
    walletMayGoNegative,
    partnerRevenueReversedUsd: formatUsd(partnerReversed),
    cardFeeChargedToPartnerUsd: formatUsd(cardFee),
    revenueShare,
    reportingWindow,
    recipientAlreadyPaid: input.recipientAlreadyPaid,
    effects,
  };
}
