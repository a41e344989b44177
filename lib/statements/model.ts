import "server-only";
import type { StatementLineRow, StatementReversalRow } from "@/db/queries/statements";
import { formatAmountText } from "@/lib/format";
import { formatUsd, money } from "@/lib/money";
import { paymentMethodLabel } from "@/lib/payouts/payment-methods";
import { carriedWhole, statementCarryReason } from "@/lib/payouts/compute";
import type { PayoutStatement } from "@/lib/payouts/ledger";
import { formatInstant, windowDaysText } from "@/lib/time";
import type { StatementSettings } from "./settings";

/** What a recipient's statement document says; the PDF and the CSV are both written from this one object. */
/** A reversal reported again, as a statement words the part another window deducted already. */
export const REPORTED_AGAIN = "already deducted in an earlier statement (not deducted again)";

export type StatementDocument = {
  number: number;
  /** "PD-<game>-000042": the number as printed and used for file names. */
  label: string;
  statementId: string;
  gameId: string;
  issuer: { name: string; address: string };
  recipient: { playerId: number; name: string | null; email: string | null };
  window: { start: string; end: string };
  /** The batch's approval: the document's fixed date (so that rendering twice gives the same bytes). */
  issuedAt: string;
  figures: {
    carriedInUsd: string;
    grossAttributedUsd: string;
    /** What the statement deducts of the reversals listed. */
    reversedAttributedUsd: string;
    /** Listed too, and deducted already by an earlier statement (a reversal reported again): not deducted again. */
    reversedBeforeUsd: string;
    netAttributedUsd: string;
    availableUsd: string;
    /** Rolled over under the minimum (a positive balance that pays nothing this time), else 0.00. */
    rolledOverUsd: string;
    payableUsd: string;
    carriedOutUsd: string;
    minPayoutUsd: string;
  };
  carriedIn: {
    fromStatementId: string;
    /** The statement number the balance came from ("PD-…"), or null when that statement was never issued. */
    fromLabel: string | null;
    windowStart: string;
    windowEnd: string;
    amountUsd: string;
  }[];
  renewals: {
    count: number;
    subscriptionCount: number;
    lines: {
      periodId: number;
      subscriptionId: string;
      item: string;
      paidAt: string | null;
      amountUsd: string;
      /** What the share is of: the price after the service fee. */
      baseUsd: string | null;
      percent: string | null;
      attributedUsd: string | null;
      note: string | null;
    }[];
  };
  reversals: {
    periodId: number;
    subscriptionId: string;
    refundedAt: string | null;
    /** The window its renewal was settled in, by its first and last day ("renewal of <day>" when not known). */
    fromWindow: string | null;
    /** The same window as the CSV names windows: `start/end` instants, the end excluded (null when not known). */
    fromInterval: string | null;
    reversedUsd: string;
  }[];
  payment:
    | {
        state: "paid";
        paidOn: string | null;
        method: string | null;
        account: string;
        reference: string | null;
        /** Paid in another currency by a payment file: the amount sent in it and the USD→EUR rate used. */
        converted: { currency: string; amount: string; rate: string } | null;
        /** What the provider does on the way (Wise: its fee and its conversion), or null. */
        providerNote: string | null;
      }
    | {
        /** A paid payment came back: owed to the recipient again. */
        state: "returned";
        /** It never left: recorded paid by mistake, and undone (`returnedOn` is when). */
        undone: boolean;
        paidOn: string | null;
        method: string | null;
        reference: string | null;
        returnedOn: string;
        returnedUsd: string;
        reason: string;
      }
    | { state: "held" | "carried" | "unpaid"; reason: string };
};

/** The latest return of a returned statement's payment, as the statement tells it. */
export type StatementReturn = {
  amountUsd: string;
  at: Date;
  reason: string;
  /** Recorded paid by mistake and undone: the money never left. */
  undone: boolean;
  paidOn: string | null;
  paymentMethod: string | null;
  paymentReference: string | null;
};

/** "EUR 110.40 (USD 1 = EUR 0.92)": what a payment in another currency sent, and at which rate. */
export function convertedText(c: { currency: string; amount: string; rate: string }): string {
  return `${formatAmountText(c.amount, { currency: c.currency })} (USD 1 = ${c.currency} ${c.rate})`;
}

/** How a payment file sent a paid statement's payment (getStatementPaidFrom). */
export type StatementPaidFrom = { method: string; currency: string; amount: string; eurRate: string | null };

/** Shown where the payout profile's masked account will go, until payout profiles exist. */
export const NO_ACCOUNT = "—";

export function statementLabel(gameId: string, number: number): string {
  return `PD-${gameId}-${String(number).padStart(6, "0")}`;
}

function day(value: Date | null): string | null {
  return value ? formatInstant(value).slice(0, 10) : null;
}

/** A Wise payment is fixed in USD: Wise takes its fee from it, and converts it for an account in another currency. */
function wiseNote(currency: string): string {
  return currency === "USD"
    ? "Sent in USD through Wise, which deducts its fee on the way."
    : `Sent in USD through Wise, which deducts its fee and converts it to ${currency} at its own rate.`;
}

function paymentOf(
  s: PayoutStatement,
  maskedAccount: string | null,
  returned: StatementReturn | null,
  paidFrom: StatementPaidFrom | null,
): StatementDocument["payment"] {
  if (s.state === "returned" && returned)
    return {
      state: "returned",
      undone: returned.undone,
      paidOn: returned.paidOn,
      method: paymentMethodLabel(returned.paymentMethod),
      reference: returned.paymentReference,
      returnedOn: day(returned.at) ?? "—",
      returnedUsd: formatUsd(returned.amountUsd),
      reason: returned.reason,
    };
  if (s.state === "paid")
    return {
      state: "paid",
      paidOn: s.paidOn,
      method: paymentMethodLabel(s.paymentMethod),
      account: maskedAccount ?? NO_ACCOUNT,
      reference: s.paymentReference,
      converted:
        // Wise is sent in USD and converted at Wise's rate: the desk's rate is not what the recipient got.
        paidFrom && paidFrom.method !== "wise" && paidFrom.currency !== "USD" && paidFrom.eurRate !== null
          ? { currency: paidFrom.currency, amount: paidFrom.amount, rate: paidFrom.eurRate }
          : null,
      providerNote: paidFrom?.method === "wise" ? wiseNote(paidFrom.currency) : null,
    };
  if (s.state === "held") return { state: "held", reason: s.holdReason ?? "Held by finance" };
  const reason = s.holdReason ?? statementCarryReason(s);
  if (s.state === "carried") return { state: "carried", reason: reason ?? "Carried forward to the next statement" };
  return { state: "unpaid", reason: reason ?? "Approved, payment not yet recorded" };
}

export function buildStatementDocument(input: {
  statement: PayoutStatement;
  number: number;
  gameId: string;
  issuedAt: string;
  settings: StatementSettings;
  lines: StatementLineRow[];
  reversals: StatementReversalRow[];
  carriedIn: {
    fromStatementId: string;
    fromNumber?: number | null;
    amountUsd: string;
    windowStart: Date;
    windowEnd: Date;
  }[];
  /** The payout profile's masked account; none until payout profiles exist. */
  maskedAccount?: string | null;
  /** The return of a returned statement's payment. */
  returned?: StatementReturn | null;
  /** How a payment file sent a paid statement's payment. */
  paidFrom?: StatementPaidFrom | null;
}): StatementDocument {
  const s = input.statement;
  const available = money(s.availableUsd);
  // A balance held, then carried forward whole, did not roll over for being under the minimum.
  const rolledOver =
    money(s.payableUsd).isZero() && available.isPositive() && !carriedWhole(s) ? available : money("0");
  return {
    number: input.number,
    label: statementLabel(input.gameId, input.number),
    statementId: s.id,
    gameId: input.gameId,
    issuer: { name: input.settings.studioName, address: input.settings.studioAddress },
    // A name of only spaces, as the service sends for some players, is no name.
    recipient: {
      playerId: s.recipientPlayerId,
      name: s.playerName?.trim() ? s.playerName : null,
      email: s.playerEmail,
    },
    window: { start: s.windowStart, end: s.windowEnd },
    issuedAt: input.issuedAt,
    figures: {
      carriedInUsd: s.carriedInUsd,
      grossAttributedUsd: s.grossAttributedUsd,
      reversedAttributedUsd: s.reversedAttributedUsd,
      reversedBeforeUsd: s.reversedBeforeUsd,
      netAttributedUsd: s.netAttributedUsd,
      availableUsd: s.availableUsd,
      rolledOverUsd: formatUsd(rolledOver),
      payableUsd: s.payableUsd,
      carriedOutUsd: s.carryOutUsd,
      minPayoutUsd: s.minPayoutUsd,
    },
    carriedIn: input.carriedIn.map((c) => ({
      fromStatementId: c.fromStatementId,
      fromLabel: c.fromNumber == null ? null : statementLabel(input.gameId, c.fromNumber),
      windowStart: formatInstant(c.windowStart),
      windowEnd: formatInstant(c.windowEnd),
      amountUsd: c.amountUsd,
    })),
    renewals: {
      count: s.renewalCount,
      subscriptionCount: s.subscriptionCount,
      lines: input.lines.map((l) => ({
        periodId: l.periodId,
        subscriptionId: l.subscriptionId,
        item: l.itemName,
        paidAt: day(l.paidAt),
        amountUsd: l.amountUsd,
        baseUsd: l.baseUsd,
        percent: l.percentAtRenewal,
        attributedUsd: l.attributedAmountUsd,
        note: l.attributionUnavailableReason,
      })),
    },
    reversals: input.reversals.map((r) => ({
      periodId: r.periodId,
      subscriptionId: r.subscriptionId,
      refundedAt: day(r.refundedAt),
      fromWindow:
        r.fromWindowStart && r.fromWindowEnd
          ? windowDaysText(formatInstant(r.fromWindowStart), formatInstant(r.fromWindowEnd))
          : day(r.renewalPaidAt) && `renewal of ${day(r.renewalPaidAt)}`,
      fromInterval:
        r.fromWindowStart && r.fromWindowEnd
          ? `${formatInstant(r.fromWindowStart)}/${formatInstant(r.fromWindowEnd)}`
          : null,
      reversedUsd: r.reversedAttributedUsd,
    })),
    payment: paymentOf(s, input.maskedAccount ?? null, input.returned ?? null, input.paidFrom ?? null),
  };
}
