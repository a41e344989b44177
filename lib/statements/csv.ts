import "server-only";
import { stringify } from "csv-stringify/sync";
import { CSV_WRITE, neutraliseText } from "@/lib/exports/csv";
import { formatExact, money } from "@/lib/money";
import { convertedText, REPORTED_AGAIN, type StatementDocument } from "./model";

/**
 * The statement as CSV: one row per fact, `section,item,date,window,amount_usd,detail`, UTF-8, CRLF. Amounts are the
 * statement's decimal strings as they are; every text cell is neutralised against spreadsheet formulas.
 */
export const STATEMENT_CSV_COLUMNS = ["section", "item", "date", "window", "amount_usd", "detail"] as const;

type Row = [string, string, string | null, string | null, string | null, string | null];

function text(value: string | null): string | null {
  return value === null ? null : neutraliseText(value);
}

export function statementCsv(doc: StatementDocument): string {
  const window = `${doc.window.start}/${doc.window.end}`;
  const f = doc.figures;
  const rows: Row[] = [
    ["statement", "number", null, null, null, doc.label],
    ["statement", "statement_id", null, null, null, doc.statementId],
    ["statement", "issued", doc.issuedAt.slice(0, 10), null, null, null],
    ["issuer", "name", null, null, null, doc.issuer.name],
    ["issuer", "address", null, null, null, doc.issuer.address],
    ["recipient", "player_id", null, null, null, String(doc.recipient.playerId)],
    ["recipient", "name", null, null, null, doc.recipient.name],
    ["recipient", "email", null, null, null, doc.recipient.email],
    ["window", "window", null, window, null, null],
    ["summary", "carried_in", null, window, f.carriedInUsd, null],
    [
      "summary",
      "renewals",
      null,
      window,
      f.grossAttributedUsd,
      `${doc.renewals.count} renewals, ${doc.renewals.subscriptionCount} subscriptions`,
    ],
    ["summary", "reversals", null, window, f.reversedAttributedUsd, `${doc.reversals.length} reversals`],
    ...(money(f.reversedBeforeUsd).isZero()
      ? []
      : [["summary", "reversals_deducted_before", null, window, f.reversedBeforeUsd, REPORTED_AGAIN] as Row]),
    ["summary", "net", null, window, f.netAttributedUsd, null],
    ["summary", "available", null, window, f.availableUsd, null],
    ["summary", "rolled_over_under_minimum", null, window, f.rolledOverUsd, `minimum ${f.minPayoutUsd}`],
    ["summary", "payable", null, window, f.payableUsd, null],
    ["summary", "carried_out", null, window, f.carriedOutUsd, null],
  ];
  for (const c of doc.carriedIn)
    rows.push(["carried_in", c.fromLabel ?? "—", null, `${c.windowStart}/${c.windowEnd}`, c.amountUsd, null]);
  for (const l of doc.renewals.lines)
    rows.push([
      "renewal",
      `${l.subscriptionId} #${l.periodId}`,
      l.paidAt,
      window,
      l.attributedUsd,
      [l.item, shareText(l), l.note].filter(Boolean).join("; "),
    ]);
  for (const r of doc.reversals)
    rows.push([
      "reversal",
      `${r.subscriptionId} #${r.periodId}`,
      r.refundedAt,
      // Windows as every other row names them; a renewal whose window is not known, by its day.
      r.fromInterval ?? r.fromWindow,
      formatExact(money(r.reversedUsd).negated()),
      null,
    ]);
  const p = doc.payment;
  if (p.state === "paid") {
    rows.push(["payment", "state", null, null, null, "paid"]);
    rows.push(["payment", "paid_on", p.paidOn, null, f.payableUsd, null]);
    rows.push(["payment", "method", null, null, null, p.method]);
    rows.push(["payment", "account", null, null, null, p.account]);
    rows.push(["payment", "reference", null, null, null, p.reference]);
    // The amount column is USD: an amount sent in another currency is told in the detail.
    if (p.converted) rows.push(["payment", "sent_as", null, null, null, convertedText(p.converted)]);
    if (p.providerNote) rows.push(["payment", "provider", null, null, null, p.providerNote]);
  } else if (p.state === "returned" && p.undone) {
    // Recorded paid by mistake: nothing was sent, and nothing came back.
    rows.push(["payment", "state", null, null, null, "undone"]);
    rows.push(["payment", "recorded_paid_on", p.paidOn, null, p.returnedUsd, null]);
    rows.push(["payment", "reference", null, null, null, p.reference]);
    rows.push(["payment", "undone_on", p.returnedOn, null, null, null]);
    rows.push(["payment", "reason", null, null, null, p.reason]);
  } else if (p.state === "returned") {
    rows.push(["payment", "state", null, null, null, "returned"]);
    rows.push(["payment", "paid_on", p.paidOn, null, p.returnedUsd, null]);
    rows.push(["payment", "method", null, null, null, p.method]);
    rows.push(["payment", "reference", null, null, null, p.reference]);
    rows.push(["payment", "returned_on", p.returnedOn, null, p.returnedUsd, null]);
    rows.push(["payment", "reason", null, null, null, p.reason]);
  } else {
    rows.push(["payment", "state", null, null, null, p.state]);
    rows.push(["payment", "reason", null, null, null, p.reason]);
  }
  const cells = rows.map(([section, item, date, win, amount, detail]) => [
    section,
    text(item),
    date,
    text(win),
    amount,
    text(detail),
  ]);
  // A byte order mark first: a spreadsheet opened on the file reads the names in any script as UTF-8.
  return `\uFEFF${stringify([[...STATEMENT_CSV_COLUMNS], ...cells], CSV_WRITE)}`;
}

/** A renewal's share and what it is of: the price after the service fee, not the price. */
function shareText(line: StatementDocument["renewals"]["lines"][number]): string | null {
  if (!line.percent) return null;
  return line.baseUsd === null
    ? `${line.percent}% of the price ${line.amountUsd} less the service fee`
    : `${line.percent}% of ${line.baseUsd} (the price ${line.amountUsd} less the service fee)`;
}
