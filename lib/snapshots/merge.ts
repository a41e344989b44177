import { formatExact, money, sameAmount, sumMoney } from "@/lib/money";
import type {
  AttributionNotice,
  AttributionRecipient,
  AttributionReport,
  AttributionTotals,
  RenewalLine,
  Reversal,
} from "@/lib/service/schemas";
import { parseServiceInstant, type TimeWindow, windowContains, windowToQuery } from "@/lib/time";

/**
 * Pure assembly of a window's snapshot from the pages the service returned: completing a truncated recipient from
 * sub-window reports, merging the reports of adjacent sub-windows, and the completeness checks a snapshot carries.
 *
 * Windows are half-open and "splitting a window into adjacent sub-windows partitions both exactly" (renewals by
 * paid_at, reversals by refunded_at), so every money figure and every count of lines adds up over parts. What does
 * not add up is recomputed here: whether a period nets to zero in the whole window, distinct subscriptions and
 * reversed periods per recipient, first and last paid, the number of recipients.
 */

export type SubWindowRecord = {
  scope: "window" | "recipient";
  recipientPlayerId: number | null;
  window: TimeWindow;
  depth: number;
  reason: "window_too_large" | "periods_truncated" | "reversals_truncated" | "lines_truncated";
  pages: number;
};

/**
 * What assembling a window and checking it need of a renewal line. A window read in parts keeps only this of each
 * line once the line is written (lib/snapshots/row-writer.ts): a month held this way takes under a quarter of the heap.
 */
export type LineFacts = Pick<RenewalLine, "period_id" | "subscription_id" | "paid_at"> & {
  attribution: Pick<NonNullable<RenewalLine["attribution"]>, "attributed_amount_usd"> | null;
};

/** The facts of a line, and nothing else of it. */
export function lineFacts(line: RenewalLine): LineFacts {
  const { attribution } = line;
  return {
    period_id: line.period_id,
    subscription_id: line.subscription_id,
    paid_at: line.paid_at,
    attribution: attribution ? { attributed_amount_usd: attribution.attributed_amount_usd } : null,
  };
}

/** A recipient of the report whose lines are `L`: the lines themselves, or their facts once written. */
export type RecipientWith<L extends LineFacts> = Omit<AttributionRecipient, "periods"> & { periods: L[] };

export type AssembledWindow<L extends LineFacts = RenewalLine> = {
  window: TimeWindow;
  report: AttributionReport["report"];
  notice: AttributionNotice;
  /** generated_at of the first and the last page read. */
  generatedFirst: string;
  generatedLast: string;
  totals: AttributionTotals;
  /** In the service's order (net attributed descending, recipient id ascending); every line present. */
  recipients: RecipientWith<L>[];
  subWindows: SubWindowRecord[];
  notes: string[];
};

export type Check = { name: string; expected: string; actual: string; ok: boolean };

const ADDITIVE_COUNTS = [
  "renewals_settled",
  "renewals_with_attribution",
  "renewals_without_attribution",
  "refund_events_in_window",
  "reversals_without_receipts",
] as const;

const ADDITIVE_AMOUNTS = [
  "settled_gross_usd",
  "invo_fee_usd",
  "partner_revenue_settled_usd",
  "partner_revenue_reversed_usd",
  "partner_revenue_usd",
  "gross_attributed_usd",
  "reversed_attributed_usd",
  "net_attributed_usd",
] as const;

function instantMs(text: string): number {
  const ms = parseServiceInstant(text);
  if (ms === null) throw new Error(`not a timestamp: ${text}`);
  return ms;
}

/** "nets_to_zero_in_window (settled and fully refunded inside the window; pay nothing)" */
export function netsToZeroIn(window: TimeWindow, reversal: Reversal): boolean {
  if (reversal.paid_at === null || !windowContains(window, reversal.paid_at)) return false;
  // The completing refund is the one whose cumulative total reaches the period amount; it must fall in the window.
  return reversal.refund_events.some(
    (event) =>
      windowContains(window, event.refunded_at) && sameAmount(event.cumulative_refunded_after_usd, reversal.amount_usd),
  );
}

/**
 * Reversal rows of the same periods read from several adjacent sub-windows, as one row per period for `window`:
 * the events of every part in time order, this-window figures summed, window facts recomputed. Cumulative fields
 * ("refunded_to_date_usd, latest_refund_at (both cumulative, reference only)") are the same in every part.
 */
export function mergeReversals(window: TimeWindow, rows: readonly Reversal[]): Reversal[] {
  const byPeriod = new Map<number, Reversal[]>();
  for (const row of rows) {
    const list = byPeriod.get(row.period_id);
    if (list) list.push(row);
    else byPeriod.set(row.period_id, [row]);
  }
  const merged: Reversal[] = [];
  for (const group of byPeriod.values()) {
    const first = group[0] as Reversal;
    const events = group
      .flatMap((row) => row.refund_events)
      .sort((a, b) => instantMs(a.refunded_at) - instantMs(b.refunded_at));
    const notes = [...new Set(group.map((row) => row.note).filter((note): note is string => Boolean(note)))];
    const row: Reversal = {
      ...first,
      refund_events: events,
      reversed_attributed_usd: formatExact(sumMoney(group.map((r) => r.reversed_attributed_usd))),
      partner_revenue_reversed_usd: formatExact(sumMoney(group.map((r) => r.partner_revenue_reversed_usd))),
      reversal_basis: group.some((r) => r.reversal_basis === "period_row") ? "period_row" : "refund_receipts",
      settled_in_this_window: first.paid_at !== null && windowContains(window, first.paid_at),
      note: notes.length > 0 ? notes.join(" ") : null,
    };
    // What nets to zero inside a part nets to zero inside the window: the service's own word is kept where the events
    // cannot say (a period-row reversal has none).
    row.nets_to_zero_in_window =
      netsToZeroIn(window, row) || (row.settled_in_this_window && group.some((r) => r.nets_to_zero_in_window));
    merged.push(row);
  }
  return merged;
}

function distinctSubscriptions(periods: readonly LineFacts[], reversals: readonly Reversal[]): number {
  return new Set([...periods.map((p) => p.subscription_id), ...reversals.map((r) => r.subscription_id)]).size;
}

function minInstant(values: (string | null)[]): string | null {
  let best: string | null = null;
  for (const value of values) if (value !== null && (best === null || instantMs(value) < instantMs(best))) best = value;
  return best;
}

function maxInstant(values: (string | null)[]): string | null {
  let best: string | null = null;
  for (const value of values) if (value !== null && (best === null || instantMs(value) > instantMs(best))) best = value;
  return best;
}

/**
 * Service order: "Recipients sort by net attributed descending, recipient id ascending as tiebreaker." Each amount is
 * read once, not once a comparison (a month holds a hundred thousand recipients).
 */
function inServiceOrder<R extends RecipientWith<LineFacts>>(recipients: readonly R[]): R[] {
  const keyed = recipients.map((recipient) => ({ recipient, net: money(recipient.net_attributed_usd) }));
  keyed.sort((a, b) => b.net.comparedTo(a.net) || a.recipient.recipient.player_id - b.recipient.recipient.player_id);
  return keyed.map((entry) => entry.recipient);
}

/**
 * A recipient of one window report whose inline lines were truncated, completed with every line read from the
 * window's sub-windows. The figures stay the window report's own (they were never truncated).
 */
export function completeRecipient(
  window: TimeWindow,
  base: AttributionRecipient,
  periods: readonly RenewalLine[],
  reversals: readonly Reversal[],
): AttributionRecipient {
  return {
    ...base,
    periods: byPaidAt(periods),
    periods_truncated: false,
    reversals: mergeReversals(window, reversals),
    reversals_truncated: false,
  };
}

/** Lines by paid instant, then period id; each instant read once. A new array. */
function byPaidAt<L extends LineFacts>(lines: readonly L[]): L[] {
  if (lines.length < 2) return [...lines];
  const keyed = lines.map((line) => ({ line, ms: line.paid_at === null ? 0 : instantMs(line.paid_at) }));
  keyed.sort((a, b) => a.ms - b.ms || a.line.period_id - b.line.period_id);
  return keyed.map((entry) => entry.line);
}

function sumTotals(parts: readonly AssembledWindow<LineFacts>[]): AttributionTotals {
  const first = parts[0] as AssembledWindow<LineFacts>;
  const totals = { ...first.totals, unattributed_reasons: {} as Record<string, number> };
  for (const key of ADDITIVE_COUNTS) totals[key] = parts.reduce((n, p) => n + p.totals[key], 0);
  for (const key of ADDITIVE_AMOUNTS) totals[key] = formatExact(sumMoney(parts.map((p) => p.totals[key])));
  for (const part of parts) {
    for (const [reason, count] of Object.entries(part.totals.unattributed_reasons)) {
      totals.unattributed_reasons[reason] = (totals.unattributed_reasons[reason] ?? 0) + count;
    }
  }
  return totals;
}

/**
 * The reports of adjacent sub-windows that partition `window`, as one report for the whole window. Additive
 * totals are summed; recipients are merged by id with their figures summed and their window facts recomputed.
 */
export function mergeParts<L extends LineFacts>(
  window: TimeWindow,
  parts: readonly AssembledWindow<L>[],
): AssembledWindow<L> {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!first || !last) throw new Error("nothing to merge");
  if (first.window.startMs !== window.startMs || last.window.endMs !== window.endMs) {
    throw new Error("sub-windows do not cover the window");
  }
  parts.forEach((part, i) => {
    if (i > 0 && parts[i - 1]?.window.endMs !== part.window.startMs) throw new Error("sub-windows are not adjacent");
  });

  const byId = new Map<number, RecipientWith<L>[]>();
  for (const part of parts) {
    for (const recipient of part.recipients) {
      const list = byId.get(recipient.recipient.player_id);
      if (list) list.push(recipient);
      else byId.set(recipient.recipient.player_id, [recipient]);
    }
  }
  const merged: RecipientWith<L>[] = [];
  for (const group of byId.values()) {
    const latest = group[group.length - 1] as RecipientWith<L>;
    const periods = byPaidAt(group.flatMap((r) => r.periods));
    const reversals = mergeReversals(
      window,
      group.flatMap((r) => r.reversals),
    );
    merged.push({
      ...latest,
      renewal_count: group.reduce((n, r) => n + r.renewal_count, 0),
      subscription_count: distinctSubscriptions(periods, reversals),
      gross_attributed_usd: formatExact(sumMoney(group.map((r) => r.gross_attributed_usd))),
      reversed_attributed_usd: formatExact(sumMoney(group.map((r) => r.reversed_attributed_usd))),
      net_attributed_usd: formatExact(sumMoney(group.map((r) => r.net_attributed_usd))),
      first_paid_at: minInstant(group.map((r) => r.first_paid_at)),
      last_paid_at: maxInstant(group.map((r) => r.last_paid_at)),
      periods,
      periods_truncated: false,
      reversals,
      reversal_count: reversals.length,
      reversals_truncated: false,
    });
  }
  const recipients = inServiceOrder(merged);

  const totals = sumTotals(parts);
  totals.recipient_count = recipients.length;
  // A period settled in one part and fully refunded in a later one nets to zero in the whole window though in
  // neither part. For attributed periods the merged reversal rows show it; unattributed periods appear in no
  // recipient, so only what each part saw of them can be counted.
  const attributedInParts = parts.reduce(
    (n, part) =>
      n + part.recipients.reduce((m, r) => m + r.reversals.filter((v) => v.nets_to_zero_in_window).length, 0),
    0,
  );
  const unattributedInParts =
    parts.reduce((n, p) => n + p.totals.renewals_settled_then_fully_reversed, 0) - attributedInParts;
  const attributedInWindow = recipients.reduce(
    (n, r) => n + r.reversals.filter((v) => v.nets_to_zero_in_window).length,
    0,
  );
  totals.renewals_settled_then_fully_reversed = Math.max(0, unattributedInParts) + attributedInWindow;

  const notes = [...new Set(parts.flatMap((p) => p.notes))];
  if (unattributedInParts > 0) {
    notes.push(
      "renewals_settled_then_fully_reversed: unattributed renewals are counted as each sub-window saw them " +
        "(the report lists no line for them).",
    );
  }
  return {
    window,
    report: {
      ...first.report,
      window: {
        ...windowToQuery(window),
        end_exclusive: first.report.window.end_exclusive,
      },
    },
    notice: first.notice,
    generatedFirst: first.generatedFirst,
    generatedLast: last.generatedLast,
    totals,
    recipients,
    subWindows: parts.flatMap((p) => p.subWindows),
    notes,
  };
}

function check(
  name: string,
  expected: string | number,
  actual: string | number,
  equal?: (a: string, b: string) => boolean,
): Check {
  const e = String(expected);
  const a = String(actual);
  return { name, expected: e, actual: a, ok: equal ? equal(e, a) : e === a };
}

/**
 * What proves a snapshot complete: every recipient listed is there once, every recipient carries as many lines as its
 * counts say, and the lines add up to its figures, which add up to the window's totals.
 */
export function completenessChecks(assembled: AssembledWindow<LineFacts>): Check[] {
  const checks: Check[] = [];
  const { totals, recipients } = assembled;
  const ids = new Set(recipients.map((r) => r.recipient.player_id));
  checks.push(check("recipients listed once each", recipients.length, ids.size));
  // Not against totals.recipient_count: the spec does not say which recipients it counts (the emulator's choice,
  // emulator/README.md), and the list is held to the pagination's total_count as it is read (fetch.ts).
  checks.push(
    check(
      "renewal lines = totals.renewals_with_attribution",
      totals.renewals_with_attribution,
      recipients.reduce((n, r) => n + r.periods.length, 0),
    ),
  );
  checks.push(
    check(
      "sum of recipients' gross = totals.gross_attributed_usd",
      totals.gross_attributed_usd,
      formatExact(sumMoney(recipients.map((r) => r.gross_attributed_usd))),
      sameAmount,
    ),
  );
  checks.push(
    check(
      "sum of recipients' net = totals.net_attributed_usd",
      totals.net_attributed_usd,
      formatExact(sumMoney(recipients.map((r) => r.net_attributed_usd))),
      sameAmount,
    ),
  );
  const periodIds = new Set<number>();
  let duplicateLines = 0;
  let recipientsShort = 0;
  let recipientsOff = 0;
  for (const r of recipients) {
    for (const line of r.periods) {
      if (periodIds.has(line.period_id)) duplicateLines++;
      periodIds.add(line.period_id);
    }
    if (r.periods_truncated || r.reversals_truncated) recipientsShort++;
    if (r.periods.length !== r.renewal_count || r.reversals.length !== r.reversal_count) recipientsShort++;
    const lineGross = sumMoney(r.periods.map((p) => p.attribution?.attributed_amount_usd ?? "0"));
    const rowsReversed = sumMoney(r.reversals.map((v) => v.reversed_attributed_usd));
    if (!lineGross.equals(money(r.gross_attributed_usd)) || !rowsReversed.equals(money(r.reversed_attributed_usd)))
      recipientsOff++;
  }
  checks.push(check("renewal lines listed once each", 0, duplicateLines));
  checks.push(check("recipients missing lines (renewals or reversals)", 0, recipientsShort));
  checks.push(check("recipients whose lines do not add up to their figures", 0, recipientsOff));
  return checks;
}
